// The child side of the isolation tests: gpudissect's `__probe-child`, with the misbehaving test
// probes instead of the catalog. Usage: gpudissect_test_child JOB (results on fd 3).
#include <cstdio>

#include "core/executor.hpp"
#include "support/isolation_probes.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s JOB\n", argv[0]);
    return 2;
  }
  return gd::probe_child_main(gd::test_support::isolation_registry(), argv[1], 3);
}
