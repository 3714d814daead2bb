// `floe table scan`: prints the rows of an Iceberg table snapshot as JSON
// lines (the `floe parquet cat` value format) or CSV. The handler only parses
// options, builds a TableScan and renders its batches.
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "catalog/open/open_catalog.h"
#include "catalog/table/catalog.h"
#include "cli/commands.h"
#include "columnar/json_format.h"
#include "iceberg/scan/table_scan.h"
#include "iceberg/spec/table_metadata.h"
#include "io/prefix_mapping_file_io.h"
#include "io/s3/file_io_factory.h"

namespace floe::cli {
namespace {

struct TableScanOptions {
  std::string table;  // namespace.table in --catalog
  std::string catalog_uri;
  std::string warehouse;
  std::string catalog_name = "floe";
  std::string metadata_path;
  std::vector<std::string> location_maps;
  std::string format = "jsonl";
  std::optional<int64_t> snapshot_id;
  std::string columns;
  int64_t limit = -1;
  std::vector<std::string> filters;
};

int Fail(const Status& status) {
  std::cerr << "floe: " << status.message() << "\n";
  return 1;
}

std::string Trim(const std::string& text) {
  const size_t begin = text.find_first_not_of(" \t");
  if (begin == std::string::npos) return "";
  return text.substr(begin, text.find_last_not_of(" \t") - begin + 1);
}

std::vector<std::string> SplitColumns(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = text.find(',', start);
    const std::string part =
        Trim(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (!part.empty()) out.push_back(part);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

// Splits "a = 1 and b > 2" at case-insensitive " and " outside quotes.
std::vector<std::string> SplitConjunction(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  char quote = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quote != 0) {
      if (c == quote) quote = 0;
      continue;
    }
    if (c == '\'' || c == '"') {
      quote = c;
      continue;
    }
    if (c == ' ' && i + 5 <= text.size()) {
      std::string word = text.substr(i, 5);
      for (char& w : word) w = static_cast<char>(std::tolower(static_cast<unsigned char>(w)));
      if (word == " and ") {
        out.push_back(text.substr(start, i - start));
        start = i + 5;
        i += 4;
      }
    }
  }
  out.push_back(text.substr(start));
  return out;
}

Result<std::shared_ptr<FileIO>> MakeTableIO(const std::vector<std::string>& location_maps,
                                            const std::string& metadata_path) {
  std::vector<PrefixMapping> mappings;
  for (const std::string& text : location_maps) {
    FLOE_ASSIGN_OR_RETURN(PrefixMapping mapping, ParsePrefixMapping(text));
    mappings.push_back(std::move(mapping));
  }
  PrefixMappingFileIO probe(nullptr, mappings);
  FLOE_ASSIGN_OR_RETURN(std::shared_ptr<FileIO> base, FileIOForUri(probe.MapPath(metadata_path)));
  if (mappings.empty()) return base;
  return std::shared_ptr<FileIO>(std::make_shared<PrefixMappingFileIO>(std::move(base), std::move(mappings)));
}

// The table's metadata and the FileIO to read its files, from --metadata or a catalog.
struct OpenedTable {
  iceberg::TableMetadata metadata;
  std::shared_ptr<FileIO> io;
};

Result<OpenedTable> OpenFromMetadataFile(const TableScanOptions& options) {
  FLOE_ASSIGN_OR_RETURN(std::shared_ptr<FileIO> io,
                        MakeTableIO(options.location_maps, options.metadata_path));
  FLOE_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, io->ReadAll(options.metadata_path));
  FLOE_ASSIGN_OR_RETURN(iceberg::TableMetadata metadata,
                        iceberg::TableMetadataFromJson(
                            std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()),
                            options.metadata_path));
  return OpenedTable{std::move(metadata), std::move(io)};
}

Result<OpenedTable> OpenFromCatalog(const TableScanOptions& options) {
  FLOE_ASSIGN_OR_RETURN(std::shared_ptr<catalog::Catalog> tables,
                        catalog::OpenCatalog(catalog::CatalogOptionsForUri(
                            options.catalog_uri, options.warehouse, options.catalog_name)));
  FLOE_ASSIGN_OR_RETURN(catalog::TableIdentifier id, catalog::ParseTableIdentifier(options.table));
  FLOE_ASSIGN_OR_RETURN(std::shared_ptr<iceberg::TableOperations> operations, tables->LoadTable(id));
  FLOE_ASSIGN_OR_RETURN(iceberg::LoadedTable loaded, operations->Load());
  // The table's FileIO lives as long as its operations (and catalog).
  auto keep_alive = std::make_shared<
      std::pair<std::shared_ptr<catalog::Catalog>, std::shared_ptr<iceberg::TableOperations>>>(tables,
                                                                                               operations);
  std::shared_ptr<FileIO> io(keep_alive, &operations->io());
  if (!options.location_maps.empty()) {
    std::vector<PrefixMapping> mappings;
    for (const std::string& text : options.location_maps) {
      FLOE_ASSIGN_OR_RETURN(PrefixMapping mapping, ParsePrefixMapping(text));
      mappings.push_back(std::move(mapping));
    }
    io = std::make_shared<PrefixMappingFileIO>(std::move(io), std::move(mappings));
  }
  return OpenedTable{std::move(loaded.metadata), std::move(io)};
}

Status RunScan(const TableScanOptions& options) {
  if (options.format != "jsonl" && options.format != "csv") {
    return Status::InvalidArgument("unknown format '" + options.format + "' (expected jsonl or csv)");
  }
  const bool from_catalog = !options.catalog_uri.empty();
  if (from_catalog == !options.metadata_path.empty()) {
    return Status::InvalidArgument("give either TABLE --catalog URI [--warehouse PATH] or --metadata PATH");
  }
  if (from_catalog && options.table.empty()) return Status::InvalidArgument("--catalog needs a TABLE name");
  FLOE_ASSIGN_OR_RETURN(OpenedTable opened,
                        from_catalog ? OpenFromCatalog(options) : OpenFromMetadataFile(options));
  std::shared_ptr<FileIO> io = opened.io;
  iceberg::TableMetadata metadata = std::move(opened.metadata);
  iceberg::ScanOptions scan_options;
  scan_options.snapshot_id = options.snapshot_id;
  if (!options.columns.empty()) scan_options.columns = SplitColumns(options.columns);
  for (const std::string& filter : options.filters) {
    for (const std::string& part : SplitConjunction(filter)) {
      FLOE_ASSIGN_OR_RETURN(iceberg::Predicate predicate, iceberg::ParsePredicate(part));
      scan_options.filter.push_back(std::move(predicate));
    }
  }
  FLOE_ASSIGN_OR_RETURN(std::unique_ptr<iceberg::TableScan> scan,
                        iceberg::TableScan::Make(std::move(metadata), io, std::move(scan_options)));
  FLOE_ASSIGN_OR_RETURN(std::vector<iceberg::FileScanTask> tasks, scan->PlanFiles());
  const bool csv = options.format == "csv";
  std::string out;
  if (csv) AppendCsvHeader(scan->output_schema(), &out);
  int64_t remaining = options.limit;
  Status status;
  for (const iceberg::FileScanTask& task : tasks) {
    if (remaining == 0) break;
    auto reader = scan->Open(task);
    if (!reader.ok()) {
      status = reader.status();
      break;
    }
    while (remaining != 0) {
      auto batch = (*reader)->Next();
      if (!batch.ok()) {
        status = batch.status().WithContext(task.data.file.file_path);
        break;
      }
      if (!batch->has_value()) break;
      const RecordBatch& rows = **batch;
      for (int64_t row = 0; row < rows.num_rows && remaining != 0; ++row) {
        if (csv) {
          AppendCsvRow(rows, row, &out);
        } else {
          AppendJsonRow(rows, row, &out);
          out.push_back('\n');
        }
        if (remaining > 0) --remaining;
      }
      if (out.size() > (1 << 20)) {
        std::cout << out;
        out.clear();
      }
    }
    if (!status.ok()) break;
  }
  std::cout << out;
  std::cout.flush();
  return status;
}

// The "table" group, shared with the other `floe table` commands.
CLI::App* FindOrAddTableCommand(CLI::App& app) {
  auto existing = app.get_subcommands([](const CLI::App* sub) { return sub->get_name() == "table"; });
  if (!existing.empty()) return existing.front();
  auto* table = app.add_subcommand("table", "Read and maintain Iceberg tables");
  table->require_subcommand(1);
  return table;
}

}  // namespace

void RegisterTableScanCommand(CLI::App& app, ExitCode& exit_code) {
  CLI::App* table = FindOrAddTableCommand(app);
  auto* cmd =
      table->add_subcommand("scan", "Print the rows of an Iceberg table snapshot as JSON lines or CSV");
  auto options = std::make_shared<TableScanOptions>();
  cmd->add_option("table", options->table, "Table identifier (namespace.table) in --catalog");
  cmd->add_option(
      "--catalog", options->catalog_uri,
      "Catalog URI: sqlite:///path, postgresql://..., file:///warehouse, rest+http(s)://host:port");
  cmd->add_option("--warehouse", options->warehouse, "Warehouse location of a SQL catalog's tables");
  cmd->add_option("--catalog-name", options->catalog_name,
                  "Catalog name inside a SQL catalog (default floe)");
  cmd->add_option("--metadata", options->metadata_path,
                  "Path or URI of the table's vN.metadata.json (no catalog)");
  cmd->add_option("--location-map", options->location_maps,
                  "FROM=TO: read paths starting with FROM under TO instead (repeatable)");
  cmd->add_option("--format", options->format, "jsonl (default) or csv");
  cmd->add_option("--snapshot", options->snapshot_id, "Snapshot id to read (default: current)");
  cmd->add_option("--columns", options->columns, "Comma-separated top-level columns (default: all)");
  cmd->add_option("--limit", options->limit, "Print at most N rows");
  cmd->add_option("--filter", options->filters,
                  "\"col op value\" (op: = != < <= > >=, is null, is not null; AND-joined, repeatable)");
  cmd->callback([options, &exit_code] {
    const Status status = RunScan(*options);
    exit_code.value = status.ok() ? 0 : Fail(status);
  });
}

}  // namespace floe::cli
