// One whole cycle (generate, copy, delete both) of one representation, once: the workload
// perfgate runs under valgrind (instruction count) and GNU time (peak RSS) as BM_Total/<kind>/<n>.
//   tree_alloc_probe pointer|buffer NODES
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "tree.h"

template <class Tree>
long long cycle(std::uint32_t n) {
  Tree t = Tree::generate(n);
  Tree c = t.copy();
  return static_cast<long long>(t.checksum() == c.checksum() ? t.checksum() : 0);
}

int main(int argc, char** argv) {
  char* end = nullptr;
  unsigned long n = argc == 3 ? std::strtoul(argv[2], &end, 10) : 0;
  bool ok_n = argc == 3 && end && *end == '\0' && n > 0 && n < 0xFFFFFFFFul;
  if (!ok_n || (std::strcmp(argv[1], "pointer") != 0 && std::strcmp(argv[1], "buffer") != 0)) {
    std::fprintf(stderr, "usage: tree_alloc_probe pointer|buffer NODES (NODES a whole number > 0)\n");
    return 2;
  }
  auto nodes = static_cast<std::uint32_t>(n);
  long long sum = std::strcmp(argv[1], "pointer") == 0 ? cycle<tree::PointerTree>(nodes)
                                                        : cycle<tree::BufferTree>(nodes);
  std::printf("checksum %llx\n", static_cast<unsigned long long>(sum));
  return sum == 0 ? 1 : 0;
}
