// `floe parquet ...`: inspect and convert Parquet files.
#include <iostream>

#include "cli/commands.h"

namespace floe::cli {

void RegisterParquetCommands(CLI::App& app, ExitCode& exit_code) {
  auto* parquet = app.add_subcommand("parquet", "Inspect and convert Parquet files");
  parquet->require_subcommand(1);
  (void)exit_code;
}

}  // namespace floe::cli
