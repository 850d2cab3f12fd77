// Two representations of the same binary tree, built, copied and deleted the same way.
//
//  * PointerTree: one heap allocation per node, children by pointer (24-byte node plus the
//    allocator's per-chunk header).
//  * BufferTree: every node in one std::vector, children by 32-bit index (16-byte node, one
//    allocation for the whole tree); deleting the tree frees one buffer.
//
// The shape is random but fixed by the seed: a node of a subtree of n nodes puts a uniformly
// random k in [0, n-1] of them in its left subtree and n-1-k in its right one (expected depth
// O(log n)), and each node holds a random 64-bit value.  Both trees draw the same numbers in the
// same order, so they are identical; checksum() proves it.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace tree {

// SplitMix64: small, fast and fully determined by its seed.
struct Rng {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  std::uint64_t below(std::uint64_t n) { return n ? next() % n : 0; }
};

constexpr std::uint64_t kSeed = 2026;

struct PNode {
  std::int64_t value;
  PNode* left;
  PNode* right;
};

class PointerTree {
 public:
  static PointerTree generate(std::uint32_t nodes) {
    Rng rng{kSeed};
    return PointerTree(build(nodes, rng));
  }
  PointerTree copy() const { return PointerTree(clone(root_)); }
  std::int64_t checksum() const { return sum(root_, 1); }

  PointerTree(PointerTree&& other) noexcept : root_(std::exchange(other.root_, nullptr)) {}
  PointerTree& operator=(PointerTree&& other) noexcept {
    destroy(root_);
    root_ = std::exchange(other.root_, nullptr);
    return *this;
  }
  ~PointerTree() { destroy(root_); }

 private:
  explicit PointerTree(PNode* root) : root_(root) {}

  static PNode* build(std::uint32_t n, Rng& rng) {
    if (n == 0) return nullptr;
    auto left_size = static_cast<std::uint32_t>(rng.below(n));
    auto* node = new PNode{static_cast<std::int64_t>(rng.next()), nullptr, nullptr};
    node->left = build(left_size, rng);
    node->right = build(n - 1 - left_size, rng);
    return node;
  }
  static PNode* clone(const PNode* from) {
    if (!from) return nullptr;
    auto* node = new PNode{from->value, nullptr, nullptr};
    node->left = clone(from->left);
    node->right = clone(from->right);
    return node;
  }
  static void destroy(PNode* node) {
    if (!node) return;
    destroy(node->left);
    destroy(node->right);
    delete node;
  }
  static std::int64_t sum(const PNode* node, std::int64_t depth) {
    if (!node) return 0;
    return node->value * depth + sum(node->left, depth + 1) + sum(node->right, depth + 1);
  }

  PNode* root_ = nullptr;
};

struct INode {
  std::int64_t value;
  std::uint32_t left;   // index into the buffer, kNone if absent
  std::uint32_t right;
};
constexpr std::uint32_t kNone = 0xFFFFFFFFu;

class BufferTree {
 public:
  static BufferTree generate(std::uint32_t nodes) {
    Rng rng{kSeed};
    BufferTree t;
    t.nodes_.reserve(nodes);
    t.build(nodes, rng);
    return t;
  }
  // A traversal copy into a fresh buffer, like PointerTree::copy (not a memcpy).
  BufferTree copy() const {
    BufferTree t;
    t.nodes_.reserve(nodes_.size());
    if (!nodes_.empty()) t.clone(*this, 0);
    return t;
  }
  std::int64_t checksum() const { return nodes_.empty() ? 0 : sum(0, 1); }

 private:
  std::uint32_t build(std::uint32_t n, Rng& rng) {
    if (n == 0) return kNone;
    auto left_size = static_cast<std::uint32_t>(rng.below(n));
    auto at = static_cast<std::uint32_t>(nodes_.size());
    nodes_.push_back(INode{static_cast<std::int64_t>(rng.next()), kNone, kNone});
    std::uint32_t left = build(left_size, rng);
    std::uint32_t right = build(n - 1 - left_size, rng);
    nodes_[at].left = left;
    nodes_[at].right = right;
    return at;
  }
  std::uint32_t clone(const BufferTree& from, std::uint32_t i) {
    const INode& src = from.nodes_[i];
    auto at = static_cast<std::uint32_t>(nodes_.size());
    nodes_.push_back(INode{src.value, kNone, kNone});
    std::uint32_t left = src.left == kNone ? kNone : clone(from, src.left);
    std::uint32_t right = src.right == kNone ? kNone : clone(from, src.right);
    nodes_[at].left = left;
    nodes_[at].right = right;
    return at;
  }
  std::int64_t sum(std::uint32_t i, std::int64_t depth) const {
    if (i == kNone) return 0;
    const INode& n = nodes_[i];
    return n.value * depth + sum(n.left, depth + 1) + sum(n.right, depth + 1);
  }

  std::vector<INode> nodes_;
};

}  // namespace tree
