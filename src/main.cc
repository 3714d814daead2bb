#include <string_view>

#include "cli/cli.h"
#include "common/malloc_tuning.h"

namespace {

// The commands that ingest or rewrite data, whose change maps and decoded
// columns run to hundreds of MB: they restart on a huge-page heap
// (common/malloc_tuning.h). The others (inspection, status, --version)
// start in ~40 ms, and a restart would add ~30 ms to each.
bool MovesData(int argc, char** argv) {
  if (argc < 2) return false;
  const std::string_view command = argv[1];
  return command == "run" || command == "maintain" || command == "demo" || command == "validate" ||
         command == "table";
}

}  // namespace

int main(int argc, char** argv) {
  if (MovesData(argc, argv)) floe::RestartWithHugePageHeap(argv);  // returns unless it restarts
  floe::TuneMallocForColumnBuffers();
  return floe::cli::Main(argc, argv);
}
