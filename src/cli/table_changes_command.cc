// `floe table changes`: prints every row change between two snapshots of an
// Iceberg table (iceberg/scan/changelog_scan.h) as JSON lines, CSV or a
// Parquet file. The handler only parses options, builds a ChangelogScan and
// renders its batches.
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/table_source.h"
#include "columnar/json_format.h"
#include "formats/parquet/file_writer.h"
#include "iceberg/scan/changelog_scan.h"
#include "io/s3/file_io_factory.h"

namespace floe::cli {
namespace {

struct TableChangesOptions {
  TableSourceOptions source;
  int64_t from_snapshot = 0;
  std::optional<int64_t> to_snapshot;
  std::vector<std::string> keys;
  std::string format = "jsonl";
  std::string output;  // empty: standard output (jsonl, csv)
};

// Text output to standard output or to a file, flushed in pieces.
class TextSink {
 public:
  static Result<TextSink> Open(const std::string& path) {
    TextSink sink;
    if (path.empty()) return sink;
    FLOE_ASSIGN_OR_RETURN(auto io, FileIOForUri(path));
    FLOE_ASSIGN_OR_RETURN(sink.file_, io->Create(path));
    return sink;
  }
  std::string& buffer() { return buffer_; }
  Status Flush() {
    if (file_ == nullptr) {
      std::cout << buffer_;
    } else {
      FLOE_RETURN_IF_ERROR(file_->Write(buffer_));
    }
    buffer_.clear();
    return Status::OK();
  }
  Status Close() {
    FLOE_RETURN_IF_ERROR(Flush());
    if (file_ == nullptr) {
      std::cout.flush();
      return Status::OK();
    }
    return file_->Close().status();
  }
  void Abort() {
    if (file_ != nullptr) file_->Abort();
  }

 private:
  std::unique_ptr<OutputFile> file_;
  std::string buffer_;
};

Status RunChanges(const TableChangesOptions& options) {
  const bool parquet = options.format == "parquet";
  if (!parquet && options.format != "jsonl" && options.format != "csv") {
    return Status::InvalidArgument("unknown format '" + options.format +
                                   "' (expected jsonl, csv or parquet)");
  }
  if (parquet && options.output.empty())
    return Status::InvalidArgument("--format parquet needs --output FILE");
  FLOE_ASSIGN_OR_RETURN(OpenedTable opened, OpenTableSource(options.source));
  iceberg::ChangelogOptions changelog;
  changelog.from_snapshot_id = options.from_snapshot;
  changelog.to_snapshot_id = options.to_snapshot;
  for (const std::string& list : options.keys) {
    size_t start = 0;
    while (start <= list.size()) {
      const size_t comma = std::min(list.find(',', start), list.size());
      if (comma > start) changelog.key_columns.push_back(list.substr(start, comma - start));
      start = comma + 1;
    }
  }
  FLOE_ASSIGN_OR_RETURN(
      auto scan, iceberg::ChangelogScan::Make(std::move(opened.metadata), opened.io, std::move(changelog)));
  FLOE_ASSIGN_OR_RETURN(std::vector<iceberg::ChangelogCommit> commits, scan->PlanCommits());

  std::unique_ptr<parquet::ParquetFileWriter> writer;
  std::optional<TextSink> text;
  if (parquet) {
    FLOE_ASSIGN_OR_RETURN(auto io, FileIOForUri(options.output));
    FLOE_ASSIGN_OR_RETURN(auto file, io->Create(options.output));
    FLOE_ASSIGN_OR_RETURN(writer,
                          parquet::ParquetFileWriter::Open(std::move(file), scan->output_schema(), {}));
  } else {
    FLOE_ASSIGN_OR_RETURN(TextSink sink, TextSink::Open(options.output));
    text.emplace(std::move(sink));
    if (options.format == "csv") AppendCsvHeader(scan->output_schema(), &text->buffer());
  }
  auto render = [&](const RecordBatch& rows) -> Status {
    if (writer) return writer->Write(rows);
    std::string& out = text->buffer();
    for (int64_t row = 0; row < rows.num_rows; ++row) {
      if (options.format == "csv") {
        AppendCsvRow(rows, row, &out);
      } else {
        AppendJsonRow(rows, row, &out);
        out.push_back('\n');
      }
      if (out.size() > (1 << 20)) FLOE_RETURN_IF_ERROR(text->Flush());
    }
    return Status::OK();
  };
  Status status;
  for (const iceberg::ChangelogCommit& commit : commits) {
    auto reader = scan->Open(commit);
    if (!reader.ok()) {
      status = reader.status();
      break;
    }
    while (status.ok()) {
      auto batch = (*reader)->Next();
      if (!batch.ok()) {
        status = batch.status().WithContext("snapshot " + std::to_string(commit.snapshot_id));
        break;
      }
      if (!batch->has_value()) break;
      status = render(**batch);
    }
    if (!status.ok()) break;
  }
  if (!status.ok()) {
    // Never leave a partial file where the whole feed was asked for.
    if (text) (void)text->Close();
    if (text && !options.output.empty()) text->Abort();
    return status;
  }
  if (writer) return writer->Close().status();
  return text->Close();
}

}  // namespace

void RegisterTableChangesCommand(CLI::App& app, ExitCode& exit_code) {
  CLI::App* table = FindOrAddTableGroup(app);
  auto* cmd = table->add_subcommand(
      "changes", "Print every row change between two snapshots (inserts, deletes, update pre/post images)");
  auto options = std::make_shared<TableChangesOptions>();
  AddTableSourceOptions(cmd, &options->source);
  cmd->add_option("--from-snapshot", options->from_snapshot,
                  "Snapshot id the changes start after (exclusive)")
      ->required();
  cmd->add_option("--to-snapshot", options->to_snapshot,
                  "Snapshot id the changes end at (inclusive; default: the current snapshot)");
  cmd->add_option("--key", options->keys,
                  "Key column(s) pairing updates (comma-separated or repeated; default: the table's "
                  "identifier fields, else floe's recorded [merge] keys)");
  cmd->add_option("--format", options->format, "jsonl (default), csv or parquet");
  cmd->add_option("--output", options->output, "Write to this file instead of standard output");
  cmd->callback([options, &exit_code] {
    const Status status = RunChanges(*options);
    if (!status.ok()) std::cerr << "floe table changes: " << status.ToString() << "\n";
    exit_code.value = status.ok() ? 0 : 1;
  });
}

}  // namespace floe::cli
