// Google Benchmark driver: generate, copy and delete a tree of N nodes, and the whole cycle
// (generate + copy + delete both, the seed's "Total"), for each representation in tree.h.
//
// Every benchmark also reports the user counter `heap_bytes`: bytes the allocator holds for
// one tree (mallinfo2().uordblks after generating minus before, so the allocator's per-chunk
// headers count), the memory half of the seed's comparison.  Peak RSS of a whole cycle comes
// from the probe binary (tree_alloc_probe), run under GNU time by perfgate.
#include <benchmark/benchmark.h>
#include <malloc.h>

#include <cstdint>

#include "tree.h"

namespace {

double heap_in_use() { return static_cast<double>(mallinfo2().uordblks); }

template <class Tree>
double heap_bytes_of_one_tree(std::uint32_t n) {
  double before = heap_in_use();
  Tree t = Tree::generate(n);
  double after = heap_in_use();
  benchmark::DoNotOptimize(t.checksum());
  return after - before;
}

template <class Tree>
void finish(benchmark::State& state, std::uint32_t n) {
  state.SetItemsProcessed(state.iterations() * n);
  state.counters["heap_bytes"] = heap_bytes_of_one_tree<Tree>(n);
}

template <class Tree>
void BM_Generate(benchmark::State& state) {
  auto n = static_cast<std::uint32_t>(state.range(0));
  for (auto _ : state) {
    Tree t = Tree::generate(n);
    benchmark::DoNotOptimize(&t);
    state.PauseTiming();  // deleting is measured by BM_Delete
    { Tree gone = std::move(t); }
    state.ResumeTiming();
  }
  finish<Tree>(state, n);
}

template <class Tree>
void BM_Copy(benchmark::State& state) {
  auto n = static_cast<std::uint32_t>(state.range(0));
  const Tree original = Tree::generate(n);
  for (auto _ : state) {
    Tree t = original.copy();
    benchmark::DoNotOptimize(&t);
    state.PauseTiming();
    { Tree gone = std::move(t); }
    state.ResumeTiming();
  }
  finish<Tree>(state, n);
}

// Deleting a buffer tree takes microseconds while preparing its copy takes milliseconds, so
// letting Google Benchmark grow the iteration count until the *timed* part reaches its minimum
// time would run for minutes: BM_Delete runs a fixed number of iterations instead.
constexpr int kDeleteIterations = 20;

template <class Tree>
void BM_Delete(benchmark::State& state) {
  auto n = static_cast<std::uint32_t>(state.range(0));
  const Tree original = Tree::generate(n);
  for (auto _ : state) {
    state.PauseTiming();
    Tree t = original.copy();
    benchmark::DoNotOptimize(&t);
    state.ResumeTiming();
    { Tree gone = std::move(t); }
    benchmark::ClobberMemory();
  }
  finish<Tree>(state, n);
}

template <class Tree>
void BM_Total(benchmark::State& state) {
  auto n = static_cast<std::uint32_t>(state.range(0));
  for (auto _ : state) {
    Tree t = Tree::generate(n);
    Tree c = t.copy();
    benchmark::DoNotOptimize(c.checksum() == t.checksum());
  }
  finish<Tree>(state, n);
}

// Sizes 2^12, 2^16 and 2^20 nodes; the quick profile filters out the smallest.
#define TREE_BENCH(fn, Tree, label)                                                       \
  BENCHMARK_TEMPLATE(fn, Tree)                                                            \
      ->Name(#fn "/" label)                                                               \
      ->RangeMultiplier(16)                                                               \
      ->Range(1 << 12, 1 << 20)                                                           \
      ->Unit(benchmark::kMicrosecond)

#define BOTH(fn, ...)                                         \
  TREE_BENCH(fn, tree::PointerTree, "pointer") __VA_ARGS__; \
  TREE_BENCH(fn, tree::BufferTree, "buffer") __VA_ARGS__

BOTH(BM_Generate);
BOTH(BM_Copy);
BOTH(BM_Delete, ->Iterations(kDeleteIterations));
BOTH(BM_Total);

}  // namespace

BENCHMARK_MAIN();
