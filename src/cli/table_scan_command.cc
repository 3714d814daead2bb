// `floe table scan`: prints the rows of an Iceberg table snapshot as JSON
// lines (the `floe parquet cat` value format) or CSV. The handler only parses
// options, builds a TableScan and renders its batches.
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/table_source.h"
#include "columnar/json_format.h"
#include "common/strings.h"
#include "iceberg/scan/table_scan.h"
#include "iceberg/spec/table_metadata.h"

namespace floe::cli {
namespace {

struct TableScanOptions {
  TableSourceOptions source;
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
      if (EqualsIgnoreAsciiCase(std::string_view(text).substr(i, 5), " and ")) {
        out.push_back(text.substr(start, i - start));
        start = i + 5;
        i += 4;
      }
    }
  }
  out.push_back(text.substr(start));
  return out;
}

Status RunScan(const TableScanOptions& options) {
  if (options.format != "jsonl" && options.format != "csv") {
    return Status::InvalidArgument("unknown format '" + options.format + "' (expected jsonl or csv)");
  }
  FLOE_ASSIGN_OR_RETURN(OpenedTable opened, OpenTableSource(options.source));
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

}  // namespace

void RegisterTableScanCommand(CLI::App& app, ExitCode& exit_code) {
  CLI::App* table = FindOrAddTableGroup(app);
  auto* cmd =
      table->add_subcommand("scan", "Print the rows of an Iceberg table snapshot as JSON lines or CSV");
  auto options = std::make_shared<TableScanOptions>();
  AddTableSourceOptions(cmd, &options->source);
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
