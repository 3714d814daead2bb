// `floe status CONFIG [--json]`: how far behind each table of a pipeline is,
// what failed and why (observability/pipeline_status.h). Reads the ledger
// read-only, so it works beside a running `floe run` and on a stopped one.
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>

#include "catalog/open/open_catalog.h"
#include "cli/commands.h"
#include "ingest/pipeline_ledger.h"
#include "observability/pipeline_status.h"
#include "observability/status_format.h"

namespace floe::cli {

namespace {

struct StatusOptions {
  std::string config_path;
  std::string state_dir;
  bool json = false;
  bool no_tables = false;
  bool no_streams = false;
};

Status RunStatus(const StatusOptions& options) {
  FLOE_ASSIGN_OR_RETURN(ingest::PipelineConfig config, ingest::LoadPipelineConfig(options.config_path));
  if (!options.state_dir.empty()) config.state_dir = std::filesystem::absolute(options.state_dir).string();
  auto ledger = ingest::Ledger::OpenReadOnly(ingest::PipelineLedgerOptions(config));
  if (!ledger.ok()) {
    return ledger.status().WithContext("pipeline " + config.name + " (has `floe run " + config.config_path +
                                       "` run yet?)");
  }
  observability::StatusOptions status_options;
  status_options.query_streams = !options.no_streams;
  std::unique_ptr<catalog::Catalog> tables;
  std::string catalog_error;
  if (!options.no_tables) {
    catalog::CatalogOptions reading = config.catalog;
    reading.create_if_missing = false;  // a status never creates a catalog
    auto opened = catalog::OpenCatalog(reading);
    if (opened.ok()) {
      tables = std::move(*opened);
      status_options.catalog = tables.get();
    } else {
      catalog_error = "catalog: " + opened.status().ToString();
    }
  }
  FLOE_ASSIGN_OR_RETURN(observability::PipelineStatus status,
                        observability::ComputePipelineStatus(config, **ledger, status_options));
  if (!catalog_error.empty()) status.errors.push_back(catalog_error);
  if (options.json) {
    std::cout << observability::StatusJson(status).dump(2, ' ', false,
                                                        nlohmann::ordered_json::error_handler_t::replace)
              << "\n";
  } else {
    std::cout << observability::FormatStatusText(status);
  }
  return Status::OK();
}

}  // namespace

void RegisterStatusCommand(CLI::App& app, ExitCode& exit_code) {
  auto options = std::make_shared<StatusOptions>();
  auto* cmd = app.add_subcommand(
      "status", "Per table: backlog, last commit, recent rows, state and reasons, maintenance; stream lag");
  cmd->add_option("config", options->config_path, "Pipeline configuration (TOML)")->required();
  cmd->add_option("--state-dir", options->state_dir, "Pipeline state directory (overrides [state] dir)");
  cmd->add_flag("--json", options->json,
                "One JSON document (the same as GET /api/status of floe run --http)");
  cmd->add_flag("--no-tables", options->no_tables, "Do not read the tables' metadata (no catalog access)");
  cmd->add_flag("--no-streams", options->no_streams, "Do not ask the brokers for the partitions' watermarks");
  cmd->callback([options, &exit_code] {
    Status status = RunStatus(*options);
    if (!status.ok()) {
      std::cerr << "floe: " << status.ToString() << "\n";
      exit_code.value = 1;
    }
  });
}

}  // namespace floe::cli
