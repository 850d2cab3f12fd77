//! Objects whose destruction runs as a job on an actor: a serial job queue drained by one task
//! of a single-threaded tokio executor.
//!
//! Dropping an [`Obj`] either runs its deinit body at once (`Deinit::Sync`, the baseline) or
//! schedules it as a job on the actor's queue, with the releasing task's task-locals either
//! reset (`AsyncReset`: the job starts with none) or copied (`AsyncCopy`: innermost binding of
//! every key, see [`crate::locals`]).  A job drops the node's children when it runs, so a tree
//! schedules its nodes level by level.

use std::cell::{Cell, OnceCell, RefCell};
use std::rc::Rc;

use tokio::sync::Notify;

use crate::locals::{SetKind, TaskLocals};
use crate::queue::{JobQueue, QueueKind};

tokio::task_local! {
    pub static LOCALS: TaskLocals;
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Deinit {
    Sync,
    AsyncReset,
    AsyncCopy,
}

pub struct Node {
    payload: u64,
    // Never read: releasing them when the node is dropped is the point.
    #[allow(dead_code)]
    children: Vec<Obj>,
}

/// The last strong reference to a node: dropping it releases the node.
pub struct Obj(Option<Box<Node>>);

impl Obj {
    pub fn new(payload: u64, children: Vec<Obj>) -> Obj {
        Obj(Some(Box::new(Node { payload, children })))
    }
}

impl Drop for Obj {
    fn drop(&mut self) {
        if let Some(node) = self.0.take() {
            ACTOR.with(|a| a.get().expect("actor installed").release(node));
        }
    }
}

struct Job {
    locals: TaskLocals,
    node: Box<Node>,
}

pub struct Actor {
    queue: RefCell<JobQueue<Job>>,
    set: SetKind,
    mode: Cell<Deinit>,
    /// Async deinit bodies still to run in the current measurement.
    remaining: Cell<usize>,
    wake: Notify,
    done: Notify,
    stopped: Cell<bool>,
    /// Folded from every deinit body so none of the work can be optimised away.
    checksum: Cell<u64>,
}

thread_local! {
    static ACTOR: OnceCell<Rc<Actor>> = const { OnceCell::new() };
}

impl Actor {
    /// Create the actor and make it the one this thread's objects are released to.
    pub fn install(queue: QueueKind, set: SetKind) -> Rc<Actor> {
        let actor = Rc::new(Actor {
            queue: RefCell::new(JobQueue::new(queue)),
            set,
            mode: Cell::new(Deinit::Sync),
            remaining: Cell::new(0),
            wake: Notify::new(),
            done: Notify::new(),
            stopped: Cell::new(false),
            checksum: Cell::new(0),
        });
        ACTOR.with(|a| a.set(Rc::clone(&actor))).ok().expect("one actor per thread");
        actor
    }

    pub fn checksum(&self) -> u64 {
        self.checksum.get()
    }

    fn release(&self, node: Box<Node>) {
        match self.mode.get() {
            Deinit::Sync => self.deinit(node),
            Deinit::AsyncReset => self.enqueue(Job { locals: TaskLocals::default(), node }),
            Deinit::AsyncCopy => {
                let locals = LOCALS.try_with(|l| l.copy(self.set)).unwrap_or_default();
                self.enqueue(Job { locals, node })
            }
        }
    }

    fn enqueue(&self, job: Job) {
        let mut queue = self.queue.borrow_mut();
        let was_idle = queue.is_empty();
        queue.push(0, job);
        drop(queue);
        if was_idle {
            self.wake.notify_one();
        }
    }

    /// The deinit body: read the task-locals, fold the payload, release the children.
    fn deinit(&self, node: Box<Node>) {
        let seen = LOCALS.try_with(|l| l.len() as u64).unwrap_or(0);
        self.checksum.set(self.checksum.get().wrapping_add(node.payload ^ seen));
        drop(node);
    }

    /// The actor's task: drain the queue, running each job with its own task-locals.
    pub async fn run(self: Rc<Self>) {
        loop {
            let job = self.queue.borrow_mut().pop();
            match job {
                Some(Job { locals, node }) => {
                    LOCALS.scope(locals, async { self.deinit(node) }).await;
                    let left = self.remaining.get() - 1;
                    self.remaining.set(left);
                    if left == 0 {
                        self.done.notify_one();
                    }
                }
                None if self.stopped.get() => return,
                None => self.wake.notified().await,
            }
        }
    }

    pub fn stop(&self) {
        self.stopped.set(true);
        self.wake.notify_one();
    }

    /// Release `objects` (holding `count` objects) with `mode`.  Returns (scheduling, total)
    /// in nanoseconds: how long the releasing task was blocked, and the time until the last
    /// deinit body finished.
    pub async fn release_all<T>(&self, mode: Deinit, objects: T, count: usize) -> (u64, u64) {
        self.mode.set(mode);
        let asynchronous = mode != Deinit::Sync;
        if asynchronous {
            self.remaining.set(count);
        }
        let start = std::time::Instant::now();
        drop(objects);
        let scheduled = start.elapsed();
        if asynchronous && count > 0 {
            self.done.notified().await;
        }
        let total = start.elapsed();
        (scheduled.as_nanos() as u64, total.as_nanos() as u64)
    }
}

/// `count` leaf objects in a vector.
pub fn array(count: usize) -> Vec<Obj> {
    (0..count as u64).map(|i| Obj::new(i, Vec::new())).collect()
}

/// A complete binary tree of `count` objects (heap order: node i has children 2i+1, 2i+2).
pub fn tree(count: usize) -> Option<Obj> {
    fn build(i: usize, count: usize) -> Obj {
        let children = [2 * i + 1, 2 * i + 2].into_iter().filter(|&c| c < count).map(|c| build(c, count)).collect();
        Obj::new(i as u64, children)
    }
    (count > 0).then(|| build(0, count))
}
