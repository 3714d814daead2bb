// `floe demo generate DIR`: writes a deterministic demo CDA export (or
// appends a round of folders to one) and prints a one-line summary.
// `floe demo [DIR]`: the guided tour — generates DIR/export unless present,
// writes DIR/pipeline.toml, runs the pipeline once into a SQLite catalog and
// prints the run summary and how to query the tables.
#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>

#include "cli/commands.h"
#include "demo/demo_export.h"
#include "ingest/config/config.h"
#include "ingest/pipeline.h"
#include "io/file_io.h"

namespace floe::cli {
namespace {

struct GenerateOptions {
  std::string dir;
  demo::DemoExportOptions export_options;
  bool no_schema_change = false;
  bool no_empty_folder = false;
  bool no_uncommitted_folder = false;
  std::optional<int> append_round;
  int append_folders = 0;
};

int Fail(const Status& status) {
  std::cerr << "floe: " << status.ToString() << "\n";
  return 1;
}

// One line, plain integers, so scripts and tests can pick numbers out of it.
std::string SummaryLine(const std::string& what, const demo::DemoExportSummary& summary) {
  std::ostringstream line;
  line << what << " " << summary.root << ": tables " << summary.tables.size() << ", files " << summary.files
       << ", rows " << summary.rows << ", bytes " << summary.bytes << ", committed_rows "
       << summary.committed_rows << "; expected rows after the committed folders:";
  for (const auto& [table, rows] : summary.expected_rows) line << " " << table << "=" << rows;
  return line.str();
}

int Generate(const GenerateOptions& options) {
  demo::DemoExportOptions export_options = options.export_options;
  export_options.schema_change = !options.no_schema_change;
  export_options.empty_folder = !options.no_empty_folder;
  export_options.uncommitted_folder = !options.no_uncommitted_folder;
  const std::shared_ptr<FileIO> io = MakeLocalFileIO();
  const std::string root = std::filesystem::absolute(options.dir).lexically_normal().string();
  if (options.append_round) {
    if (options.append_folders < 1) {
      return Fail(Status::InvalidArgument("--append-round needs --append-folders N (N >= 1)"));
    }
    Result<demo::DemoExportSummary> summary =
        demo::AppendDemoFolders(*io, root, export_options, *options.append_round, options.append_folders);
    if (!summary.ok()) return Fail(summary.status());
    std::cout << SummaryLine("appended round " + std::to_string(*options.append_round) + " to", *summary)
              << "\n";
    return 0;
  }
  Result<demo::DemoExportSummary> summary = demo::GenerateDemoExport(*io, root, export_options);
  if (!summary.ok()) return Fail(summary.status());
  std::cout << SummaryLine("generated", *summary) << "\n";
  return 0;
}

// A TOML basic string.
std::string TomlString(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string DemoPipelineToml(const std::filesystem::path& dir) {
  std::ostringstream toml;
  toml << "# floe demo: the generated CDA export in export/ ingested into Iceberg tables\n"
       << "# (SQLite catalog, local warehouse). Run it again with: floe run "
       << (dir / "pipeline.toml").string() << " --once\n"
       << "name = \"demo\"\n\n"
       << "[source]\nformat = \"cda\"\nuri = " << TomlString((dir / "export").string()) << "\n\n"
       << "[catalog]\ntype = \"sql\"\nuri = " << TomlString("sqlite://" + (dir / "catalog.db").string())
       << "\nwarehouse = " << TomlString((dir / "warehouse").string()) << "\n\n"
       << "[target]\nnamespace = \"cda\"\n\n"
       << "# Small batches, so the first run commits several snapshots per table.\n"
       << "[trigger]\nmax_files_per_batch = 12\n\n"
       << "[state]\ndir = " << TomlString((dir / "state").string()) << "\n";
  return toml.str();
}

int RunDemo(const std::string& dir_argument) {
  const std::filesystem::path dir = std::filesystem::absolute(dir_argument).lexically_normal();
  const std::shared_ptr<FileIO> io = MakeLocalFileIO();
  const std::string export_root = (dir / "export").string();
  Result<bool> exported = io->Exists((dir / "export" / "manifest.json").string());
  if (!exported.ok()) return Fail(exported.status());
  if (*exported) {
    std::cout << "== using the existing demo export in " << export_root << "\n";
  } else {
    std::cout << "== generating a demo CDA export (seed 42) in " << export_root << "\n";
    Result<demo::DemoExportSummary> summary = demo::GenerateDemoExport(*io, export_root, {});
    if (!summary.ok()) return Fail(summary.status());
    std::cout << SummaryLine("generated", *summary) << "\n";
  }

  const std::string config_path = (dir / "pipeline.toml").string();
  Result<bool> configured = io->Exists(config_path);
  if (!configured.ok()) return Fail(configured.status());
  if (!*configured) {
    Status written = io->WriteAll(config_path, DemoPipelineToml(dir));
    if (!written.ok()) return Fail(written.WithContext(config_path));
  }
  std::cout << "\n== floe run " << config_path << " --once\n" << std::flush;
  Result<ingest::PipelineConfig> config = ingest::LoadPipelineConfig(config_path);
  if (!config.ok()) return Fail(config.status());
  ingest::PipelineOptions pipeline_options;
  pipeline_options.progress_bar = ::isatty(STDERR_FILENO) != 0;
  Result<std::unique_ptr<ingest::Pipeline>> pipeline =
      ingest::Pipeline::Open(std::move(*config), pipeline_options);
  if (!pipeline.ok()) return Fail(pipeline.status());
  Result<ingest::RunSummary> run = (*pipeline)->RunOnce();
  if (!run.ok()) return Fail(run.status());
  std::cout << run->Format();

  const std::string catalog_flags =
      "--catalog sqlite://" + (dir / "catalog.db").string() + " --warehouse " + (dir / "warehouse").string();
  std::cout << "\n== query the tables\n"
            << "  floe table list cda " << catalog_flags << "\n"
            << "  floe table scan cda.cc_claim " << catalog_flags << " --limit 5\n"
            << "  duckdb -c \"SELECT count(*) FROM read_parquet('" << (dir / "warehouse").string()
            << "/cda/cc_claim/data/**/*.parquet')\"\n"
            << "  (reading the raw data files ignores deletes; current rows: use floe table scan, or an "
               "Iceberg reader)\n"
            << "  more changes: floe demo generate " << export_root
            << " --append-round 1 --append-folders 3, then floe run " << config_path << " --once\n";
  return run->ok() ? 0 : 1;
}

}  // namespace

void RegisterDemoCommands(CLI::App& app, ExitCode& exit_code) {
  auto* demo = app.add_subcommand(
      "demo",
      "Generate a demo CDA export and ingest it into Iceberg tables (floe demo [DIR], default ./floe-demo)");
  auto demo_dir = std::make_shared<std::string>("floe-demo");
  demo->add_option("dir", *demo_dir,
                   "Demo directory: export/, pipeline.toml, catalog.db, warehouse/, state/");

  auto options = std::make_shared<GenerateOptions>();
  auto* generate = demo->add_subcommand(
      "generate", "Write a deterministic demo CDA export into DIR, or append a round of folders to one");
  generate->add_option("dir", options->dir, "Export root (manifest.json and one folder per table)")
      ->required();
  demo::DemoExportOptions& export_options = options->export_options;
  generate->add_option("--seed", export_options.seed, "Seed; the same seed and options give identical files");
  generate->add_option("--rows", export_options.rows,
                       "Ids per table at the end, roughly (typelists stay small)");
  generate->add_option("--tables", export_options.tables,
                       "Tables, 1-50: cc_claim, cc_exposure, cc_contact, cctl_lossType, cc_check, then the "
                       "same again as cc_claim_2, ...");
  generate->add_option("--folders", export_options.folders, "Committed timestamp folders per table");
  generate->add_option("--files-per-folder", export_options.files_per_folder, "Part files per folder");
  generate->add_flag("--no-schema-change", options->no_schema_change,
                     "One fingerprint only (no added columns, no int->bigint widening)");
  generate->add_flag("--no-empty-folder", options->no_empty_folder,
                     "No folder holding only .cda/batch-metrics.json");
  generate->add_flag("--no-uncommitted-folder", options->no_uncommitted_folder,
                     "No folder newer than the manifest's lastSuccessfulWriteTimestamp");
  generate->add_option("--append-round", options->append_round,
                       "Append to an existing export: round K (greater than the previous round)");
  generate->add_option("--append-folders", options->append_folders, "Committed folders the append adds");
  generate->callback([options, &exit_code] { exit_code.value = Generate(*options); });

  demo->callback([demo_dir, generate, &exit_code] {
    if (generate->parsed()) return;
    exit_code.value = RunDemo(*demo_dir);
  });
}

}  // namespace floe::cli
