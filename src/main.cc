#include "cli/cli.h"
#include "common/malloc_tuning.h"

int main(int argc, char** argv) {
  floe::RestartWithHugePageHeap(argv);  // returns unless it restarts the process
  floe::TuneMallocForColumnBuffers();
  return floe::cli::Main(argc, argv);
}
