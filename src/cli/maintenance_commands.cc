// `floe table compact|expire|remove-orphans|rewrite-manifests` and
// `floe maintain CONFIG`: parse options, open the table (a catalog, or a
// metadata file with location maps for tables other engines wrote), call
// src/maintenance and print its report.
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "catalog/open/open_catalog.h"
#include "catalog/table/catalog.h"
#include "cli/commands.h"
#include "ingest/config/config.h"
#include "ingest/pipeline.h"
#include "ingest/pipeline_maintenance.h"
#include "io/prefix_mapping_file_io.h"
#include "io/s3/file_io_factory.h"
#include "maintenance/maintenance.h"
#include "maintenance/metadata_file_table.h"

namespace floe::cli {
namespace {

// Where the table comes from: TABLE in --catalog, or --metadata FILE.
struct TableSource {
  std::string table;
  std::string catalog_uri;
  std::string warehouse;
  std::string catalog_name = "floe";
  std::string metadata_path;
  std::vector<std::string> location_maps;
};

// A loaded table with what keeps its FileIO alive.
struct OpenTable {
  std::shared_ptr<void> owner;
  std::optional<iceberg::Table> table;
};

int Report(const char* command, const Status& status) {
  if (status.ok()) return 0;
  std::cerr << "floe " << command << ": " << status.ToString() << "\n";
  return 1;
}

Result<std::shared_ptr<FileIO>> WithLocationMaps(std::shared_ptr<FileIO> io,
                                                 const std::vector<std::string>& maps) {
  if (maps.empty()) return io;
  std::vector<PrefixMapping> mappings;
  for (const std::string& text : maps) {
    FLOE_ASSIGN_OR_RETURN(PrefixMapping mapping, ParsePrefixMapping(text));
    mappings.push_back(std::move(mapping));
  }
  return std::shared_ptr<FileIO>(std::make_shared<PrefixMappingFileIO>(std::move(io), std::move(mappings)));
}

Result<OpenTable> Open(const TableSource& source) {
  const bool from_catalog = !source.catalog_uri.empty();
  if (from_catalog == !source.metadata_path.empty()) {
    return Status::InvalidArgument("give either TABLE --catalog URI [--warehouse PATH] or --metadata FILE");
  }
  OpenTable opened;
  if (!from_catalog) {
    // The metadata file itself is named as the caller sees it; the maps apply to what it references.
    FLOE_ASSIGN_OR_RETURN(std::shared_ptr<FileIO> base, FileIOForUri(source.metadata_path));
    FLOE_ASSIGN_OR_RETURN(std::shared_ptr<FileIO> io,
                          WithLocationMaps(std::move(base), source.location_maps));
    auto ops =
        std::make_shared<maintenance::MetadataFileTableOperations>(std::move(io), source.metadata_path);
    FLOE_ASSIGN_OR_RETURN(iceberg::Table table, iceberg::Table::Load(ops));
    opened.owner = ops;
    opened.table.emplace(std::move(table));
    return opened;
  }
  if (source.table.empty()) return Status::InvalidArgument("--catalog needs a TABLE name");
  if (!source.location_maps.empty()) return Status::InvalidArgument("--location-map goes with --metadata");
  FLOE_ASSIGN_OR_RETURN(std::shared_ptr<catalog::Catalog> tables,
                        catalog::OpenCatalog(catalog::CatalogOptionsForUri(
                            source.catalog_uri, source.warehouse, source.catalog_name)));
  FLOE_ASSIGN_OR_RETURN(catalog::TableIdentifier id, catalog::ParseTableIdentifier(source.table));
  FLOE_ASSIGN_OR_RETURN(auto ops, tables->LoadTable(id));
  FLOE_ASSIGN_OR_RETURN(iceberg::Table table, iceberg::Table::Load(std::move(ops)));
  opened.owner = tables;
  opened.table.emplace(std::move(table));
  return opened;
}

void AddTableSourceOptions(CLI::App* cmd, TableSource* source) {
  cmd->add_option("table", source->table, "Table identifier (namespace.table) in --catalog");
  cmd->add_option(
      "--catalog", source->catalog_uri,
      "Catalog URI: sqlite:///path, postgresql://..., file:///warehouse, rest+http(s)://host:port");
  cmd->add_option("--warehouse", source->warehouse, "Warehouse location of a SQL catalog's tables");
  cmd->add_option("--catalog-name", source->catalog_name, "Catalog name inside a SQL catalog (default floe)");
  cmd->add_option("--metadata", source->metadata_path,
                  "The table's current metadata.json (no catalog); commits write the next version beside it");
  cmd->add_option("--location-map", source->location_maps,
                  "FROM=TO: read and write paths starting with FROM under TO instead (repeatable)");
}

// Parses a duration ("5d", "36h", seconds) into *out when `text` is set.
Status ParseDurationOption(const std::string& name, const std::string& text, std::optional<int64_t>* out) {
  if (text.empty()) return Status::OK();
  auto ms = ingest::ParseDurationMs(text);
  if (!ms.ok()) return Status::InvalidArgument(name + ": " + ms.status().message());
  *out = *ms;
  return Status::OK();
}

Status ParseSizeOption(const std::string& name, const std::string& text, std::optional<int64_t>* out) {
  if (text.empty()) return Status::OK();
  auto bytes = ingest::ParseSizeBytes(text);
  if (!bytes.ok()) return Status::InvalidArgument(name + ": " + bytes.status().message());
  if (*bytes <= 0) return Status::InvalidArgument(name + ": must be greater than 0");
  *out = *bytes;
  return Status::OK();
}

std::vector<std::string> SplitList(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = text.find(',', start);
    std::string part = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    part.erase(0, part.find_first_not_of(' '));
    part.erase(part.find_last_not_of(' ') + 1);
    if (!part.empty()) out.push_back(part);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

struct CompactArgs {
  TableSource source;
  std::string target_file_size;
  std::optional<int> min_input_files;
  std::string sort;
  bool dry_run = false;
};

Status RunCompact(const CompactArgs& args) {
  maintenance::CompactionOptions options;
  FLOE_RETURN_IF_ERROR(
      ParseSizeOption("--target-file-size", args.target_file_size, &options.target_file_size));
  if (args.min_input_files) options.min_input_files = *args.min_input_files;
  options.sort_columns = SplitList(args.sort);
  options.dry_run = args.dry_run;
  FLOE_ASSIGN_OR_RETURN(OpenTable opened, Open(args.source));
  FLOE_ASSIGN_OR_RETURN(maintenance::CompactionReport report,
                        maintenance::CompactTable(*opened.table, options));
  for (const auto& g : report.groups) {
    std::cout << (args.dry_run ? "would rewrite" : "rewrote") << " spec " << g.spec_id << " partition "
              << (g.partition.empty() ? "-" : g.partition) << ": " << g.input_files << " data files, "
              << g.input_bytes << " bytes, " << g.input_delete_files << " delete files\n";
  }
  std::cout << "data files rewritten: " << report.data_files_rewritten << "\n"
            << "data files added: " << report.data_files_added << "\n"
            << "delete files removed: " << report.delete_files_removed << "\n"
            << "rows written: " << report.rows_written << "\n";
  if (report.snapshot_id) std::cout << "snapshot: " << *report.snapshot_id << "\n";
  if (!report.conflict.empty()) std::cout << "gave up this round: " << report.conflict << "\n";
  std::cout << "metadata: " << opened.table->metadata_location() << "\n";
  return Status::OK();
}

struct ExpireArgs {
  TableSource source;
  std::optional<int> retain_last;
  std::string older_than;
  bool dry_run = false;
};

Status RunExpire(const ExpireArgs& args) {
  maintenance::ExpireOptions options;
  if (args.retain_last) options.retain_last = *args.retain_last;
  FLOE_RETURN_IF_ERROR(ParseDurationOption("--older-than", args.older_than, &options.max_snapshot_age_ms));
  options.dry_run = args.dry_run;
  FLOE_ASSIGN_OR_RETURN(OpenTable opened, Open(args.source));
  FLOE_ASSIGN_OR_RETURN(maintenance::ExpireReport report,
                        maintenance::ExpireTableSnapshots(*opened.table, options));
  for (int64_t id : report.expired_snapshot_ids) {
    std::cout << (args.dry_run ? "would expire snapshot " : "expired snapshot ") << id << "\n";
  }
  for (const auto& path : report.files)
    std::cout << (args.dry_run ? "would delete " : "deleted ") << path << "\n";
  std::cout << "snapshots expired: " << (args.dry_run ? 0 : report.expired_snapshot_ids.size()) << "\n"
            << "files deleted: " << report.files_deleted << "\n";
  return Status::OK();
}

struct OrphanArgs {
  TableSource source;
  std::string older_than;
  bool force = false;
  bool dry_run = false;
};

Status RunRemoveOrphans(const OrphanArgs& args) {
  maintenance::OrphanOptions options;
  std::optional<int64_t> older_than;
  FLOE_RETURN_IF_ERROR(ParseDurationOption("--older-than", args.older_than, &older_than));
  if (older_than) options.older_than_ms = *older_than;
  options.force = args.force;
  options.dry_run = args.dry_run;
  FLOE_ASSIGN_OR_RETURN(OpenTable opened, Open(args.source));
  FLOE_ASSIGN_OR_RETURN(maintenance::OrphanReport report,
                        maintenance::RemoveOrphanFiles(*opened.table, options));
  for (const auto& path : report.orphans)
    std::cout << (args.dry_run ? "orphan " : "deleted ") << path << "\n";
  std::cout << "files listed: " << report.files_listed << "\n"
            << "orphans: " << report.orphans.size() << "\n"
            << "unreferenced but too recent: " << report.too_recent << "\n"
            << "files deleted: " << report.files_deleted << "\n";
  return Status::OK();
}

struct RewriteManifestsArgs {
  TableSource source;
  std::string target_size;
  bool dry_run = false;
};

Status RunRewriteManifests(const RewriteManifestsArgs& args) {
  maintenance::ManifestRewriteOptions options;
  std::optional<int64_t> target;
  FLOE_RETURN_IF_ERROR(ParseSizeOption("--target-size", args.target_size, &target));
  if (target) options.target_manifest_size = *target;
  options.dry_run = args.dry_run;
  FLOE_ASSIGN_OR_RETURN(OpenTable opened, Open(args.source));
  FLOE_ASSIGN_OR_RETURN(maintenance::ManifestRewriteReport report,
                        maintenance::RewriteTableManifests(*opened.table, options));
  std::cout << "manifests replaced: " << report.manifests_replaced << "\n"
            << "manifests written: " << report.manifests_written << "\n";
  if (report.snapshot_id) std::cout << "snapshot: " << *report.snapshot_id << "\n";
  if (!report.conflict.empty()) std::cout << "gave up this round: " << report.conflict << "\n";
  return Status::OK();
}

struct MaintainArgs {
  std::string config_path;
  std::string table;
  bool dry_run = false;
};

Status RunMaintain(const MaintainArgs& args) {
  FLOE_ASSIGN_OR_RETURN(ingest::PipelineConfig config, ingest::LoadPipelineConfig(args.config_path));
  FLOE_ASSIGN_OR_RETURN(auto tables, catalog::OpenCatalog(config.catalog));
  FLOE_ASSIGN_OR_RETURN(catalog::Namespace ns, catalog::ParseNamespace(config.target.ns));
  std::vector<catalog::TableIdentifier> ids;
  if (!args.table.empty()) {
    ids.push_back(catalog::TableIdentifier{ns, args.table});
  } else {
    FLOE_ASSIGN_OR_RETURN(ids, tables->ListTables(ns));
  }
  const maintenance::MaintenanceOptions options =
      ingest::MaintenanceOptionsFor(config.maintenance, args.dry_run);
  Status first_error;
  for (const auto& id : ids) {
    auto report = maintenance::MaintainTable(*tables, id, options);
    if (!report.ok()) {
      std::cerr << "floe maintain: " << report.status().ToString() << "\n";
      if (first_error.ok()) first_error = report.status();
      continue;
    }
    std::cout << "== " << id.ToString() << (args.dry_run ? " (dry run)" : "") << "\n"
              << report->ToString() << "\n";
  }
  return first_error;
}

}  // namespace

void RegisterMaintenanceCommands(CLI::App& app, ExitCode& exit_code) {
  CLI::App* table = FindOrAddTableGroup(app);
  {
    auto args = std::make_shared<CompactArgs>();
    auto* cmd = table->add_subcommand(
        "compact", "Bin-pack small data files and rewrite files with many deletes (one replace snapshot)");
    AddTableSourceOptions(cmd, &args->source);
    cmd->add_option(
        "--target-file-size", args->target_file_size,
        "Target size of written files, e.g. 128MiB (default: write.target-file-size-bytes, else 128MiB)");
    cmd->add_option("--min-input-files", args->min_input_files,
                    "Small files a partition needs before they are packed (default 5)");
    cmd->add_option("--sort", args->sort, "Comma-separated columns to sort rewritten rows by");
    cmd->add_flag("--dry-run", args->dry_run, "Print the plan; write nothing");
    cmd->callback([args, &exit_code] { exit_code.value = Report("table compact", RunCompact(*args)); });
  }
  {
    auto args = std::make_shared<ExpireArgs>();
    auto* cmd =
        table->add_subcommand("expire", "Expire old snapshots and delete the files only they referenced");
    AddTableSourceOptions(cmd, &args->source);
    cmd->add_option("--retain-last", args->retain_last, "Ancestors of each branch always kept (default 10)");
    cmd->add_option(
        "--older-than", args->older_than,
        "Expire snapshots older than this, e.g. 5d (default: history.expire.max-snapshot-age-ms, 5d)");
    cmd->add_flag("--dry-run", args->dry_run, "List what would be expired and deleted");
    cmd->callback([args, &exit_code] { exit_code.value = Report("table expire", RunExpire(*args)); });
  }
  {
    auto args = std::make_shared<OrphanArgs>();
    auto* cmd = table->add_subcommand("remove-orphans",
                                      "Delete files under the table location no metadata references");
    AddTableSourceOptions(cmd, &args->source);
    cmd->add_option("--older-than", args->older_than,
                    "Only files older than this, e.g. 3d (default 3d, at least 1h)");
    cmd->add_flag("--force", args->force, "Allow --older-than below 1h");
    cmd->add_flag("--dry-run", args->dry_run, "List the orphans; delete nothing");
    cmd->callback(
        [args, &exit_code] { exit_code.value = Report("table remove-orphans", RunRemoveOrphans(*args)); });
  }
  {
    auto args = std::make_shared<RewriteManifestsArgs>();
    auto* cmd =
        table->add_subcommand("rewrite-manifests", "Merge small data manifests (one replace snapshot)");
    AddTableSourceOptions(cmd, &args->source);
    cmd->add_option("--target-size", args->target_size,
                    "Manifests smaller than this are merged (default 8MiB)");
    cmd->add_flag("--dry-run", args->dry_run, "Print what would be merged");
    cmd->callback([args, &exit_code] {
      exit_code.value = Report("table rewrite-manifests", RunRewriteManifests(*args));
    });
  }
  {
    auto args = std::make_shared<MaintainArgs>();
    auto* cmd = app.add_subcommand("maintain",
                                   "Compact, rewrite manifests, expire snapshots and remove orphans of "
                                   "every table of a pipeline ([maintenance] settings)");
    cmd->add_option("config", args->config_path, "Pipeline configuration file (TOML)")->required();
    cmd->add_option("--table", args->table, "Only this table of the pipeline's namespace");
    cmd->add_flag("--dry-run", args->dry_run, "Report what would be done; change nothing");
    cmd->callback([args, &exit_code] { exit_code.value = Report("maintain", RunMaintain(*args)); });
  }
}

}  // namespace floe::cli
