#include "cli/cli.h"

#include <iostream>

#include "cli/commands.h"

namespace floe::cli {

int Main(int argc, char** argv) {
  CLI::App app{"floe: turns change exports in object storage into compact, correct Apache Iceberg tables"};
  app.set_version_flag("--version", "floe 0.1.0");
  app.require_subcommand(1);
  ExitCode exit_code;
  RegisterParquetCommands(app, exit_code);
  RegisterAvroCommands(app, exit_code);
  RegisterFileCommands(app, exit_code);
  RegisterTableCommands(app, exit_code);
  RegisterTableScanCommand(app, exit_code);
  RegisterTableChangesCommand(app, exit_code);
  RegisterRunCommands(app, exit_code);
  RegisterStatusCommand(app, exit_code);
  RegisterDemoCommands(app, exit_code);
  RegisterMaintenanceCommands(app, exit_code);
  RegisterServeCommand(app, exit_code);
  RegisterExprCommands(app, exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  return exit_code.value;
}

}  // namespace floe::cli
