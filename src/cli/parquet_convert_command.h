// `floe parquet convert`: rewrite a Parquet file with floe's writer.
#pragma once

#include <CLI/CLI.hpp>

#include "cli/commands.h"

namespace floe::cli {

// Registers `convert` under the `parquet` command group.
void AddConvertCommand(CLI::App& parquet, ExitCode& exit_code);

}  // namespace floe::cli
