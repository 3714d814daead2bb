#include "cli/cli.h"
#include "common/malloc_tuning.h"

int main(int argc, char** argv) {
  floe::TuneMallocForColumnBuffers();
  return floe::cli::Main(argc, argv);
}
