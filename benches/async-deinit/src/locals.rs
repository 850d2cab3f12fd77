//! Task-local values and the cost of copying them into a newly scheduled job.
//!
//! A task's locals are a chain of bindings, outermost first; an inner binding of a key shadows
//! the outer ones.  Copying them into a job keeps only the innermost binding of each key, so the
//! copy walks the chain from the inside out and remembers which keys it has seen.  That "seen"
//! set is the experiment of the seeds: an ordered set costs O(log n) per insert, so a copy of
//! n values costs O(n log n); a hash set costs O(1) per insert, so the copy is O(n).

use std::collections::{BTreeSet, HashSet};
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Arc;

/// A task-local value: one strong reference, as in the seeds.
#[derive(Debug)]
pub struct Value(#[allow(dead_code)] pub u64);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SetKind {
    /// `BTreeSet`: ordered, O(log n) insert.
    Ordered,
    /// `HashSet` with a fixed multiplicative hash: O(1) insert, and the same probe sequence on
    /// every run, so instruction counts repeat exactly.
    Hash,
}

impl SetKind {
    pub fn parse(s: &str) -> Option<SetKind> {
        match s {
            "btree" | "ordered" => Some(SetKind::Ordered),
            "hash" => Some(SetKind::Hash),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            SetKind::Ordered => "btree",
            SetKind::Hash => "hash",
        }
    }
}

#[derive(Default, Clone)]
pub struct TaskLocals {
    /// (key, value), outermost binding first.
    bindings: Vec<(u64, Arc<Value>)>,
}

impl TaskLocals {
    /// `n` distinct keys bound to fresh values.  Keys are spread over the u64 range (Fibonacci
    /// hashing of 1..=n) so neither set sees them in a conveniently sorted order.
    pub fn with_values(n: usize) -> TaskLocals {
        let bindings = (1..=n as u64)
            .map(|i| (i.wrapping_mul(0x9E37_79B9_7F4A_7C15), Arc::new(Value(i))))
            .collect();
        TaskLocals { bindings }
    }

    pub fn len(&self) -> usize {
        self.bindings.len()
    }

    /// The innermost binding of every key, for a job that inherits this task's locals.
    pub fn copy(&self, set: SetKind) -> TaskLocals {
        match set {
            SetKind::Ordered => self.copy_with(BTreeSet::new(), |s, k| s.insert(k)),
            SetKind::Hash => self.copy_with(
                HashSet::with_capacity_and_hasher(self.bindings.len(), FixedHash::default()),
                |s, k| s.insert(k),
            ),
        }
    }

    fn copy_with<S>(&self, mut seen: S, mut insert: impl FnMut(&mut S, u64) -> bool) -> TaskLocals {
        let mut bindings = Vec::with_capacity(self.bindings.len());
        for (key, value) in self.bindings.iter().rev() {
            if insert(&mut seen, *key) {
                bindings.push((*key, Arc::clone(value)));
            }
        }
        bindings.reverse();
        TaskLocals { bindings }
    }
}

/// Multiplicative (Fibonacci) hashing of one u64: h = k · ⌊2⁶⁴/φ⌋ mod 2⁶⁴.  Cheap, fixed, and
/// good enough for the distinct keys used here (the role LLVM's DenseSet plays in the seeds).
#[derive(Default)]
pub struct MulHasher(u64);

impl Hasher for MulHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
    fn write_u64(&mut self, k: u64) {
        self.0 = (self.0 ^ k).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

type FixedHash = BuildHasherDefault<MulHasher>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copy_keeps_innermost_binding_of_each_key() {
        let mut locals = TaskLocals::with_values(3);
        let shadow = Arc::new(Value(99));
        let first_key = locals.bindings[0].0;
        locals.bindings.push((first_key, Arc::clone(&shadow)));
        for set in [SetKind::Ordered, SetKind::Hash] {
            let copied = locals.copy(set);
            assert_eq!(copied.len(), 3);
            let (_, v) = copied.bindings.iter().find(|(k, _)| *k == first_key).unwrap();
            assert!(Arc::ptr_eq(v, &shadow), "{set:?} kept an outer binding");
        }
    }
}
