// Registration of subcommand groups; one file per group.
#pragma once

#include <CLI/CLI.hpp>

#include "ingest/pipeline.h"

namespace floe::cli {

// Every command's handler sets this to the process exit code.
struct ExitCode {
  int value = 0;
};

void RegisterParquetCommands(CLI::App& app, ExitCode& exit_code);
void RegisterAvroCommands(CLI::App& app, ExitCode& exit_code);
// The shared "table" group: whichever registration runs first creates it.
CLI::App* FindOrAddTableGroup(CLI::App& app);
// `floe file schema|cat` (any landing-file format).
void RegisterFileCommands(CLI::App& app, ExitCode& exit_code);
// `floe table list|describe|history|files`; finds or creates the shared "table" group.
void RegisterTableCommands(CLI::App& app, ExitCode& exit_code);
// `floe table scan`; finds or creates the shared "table" group.
void RegisterTableScanCommand(CLI::App& app, ExitCode& exit_code);
// `floe table changes` (the change feed between two snapshots).
void RegisterTableChangesCommand(CLI::App& app, ExitCode& exit_code);
// `floe run` and `floe files` (the ingestion pipeline and its ledger).
void RegisterRunCommands(CLI::App& app, ExitCode& exit_code);
// `floe status CONFIG` (backlog, commits, states and lag of a pipeline's tables).
void RegisterStatusCommand(CLI::App& app, ExitCode& exit_code);
// `floe demo [DIR]` and `floe demo generate DIR` (the demo CDA export).
void RegisterDemoCommands(CLI::App& app, ExitCode& exit_code);
// `floe table compact|expire|remove-orphans|rewrite-manifests` and `floe maintain CONFIG`.
void RegisterMaintenanceCommands(CLI::App& app, ExitCode& exit_code);

// `floe expr check|eval` (the expression language of transforms and expectations).
void RegisterExprCommands(CLI::App& app, ExitCode& exit_code);
// `floe serve` (a SQL catalog as an Iceberg REST catalog service).
void RegisterServeCommand(CLI::App& app, ExitCode& exit_code);

}  // namespace floe::cli
