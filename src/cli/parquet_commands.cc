// `floe parquet ...`: inspect and convert Parquet files. One registration
// function per command; handlers only parse options and call the library.
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/parquet_convert_command.h"
#include "cli/rows_output.h"
#include "columnar/json_format.h"
#include "common/strings.h"
#include "formats/parquet/file_reader.h"
#include "formats/parquet/parquet_chunked_reader.h"
#include "formats/parquet/reader/physical_conversion.h"
#include "formats/parquet/reader/value_decoder.h"
#include "io/file_io.h"
#include "io/s3/file_io_factory.h"

namespace floe::cli {
namespace {

using parquet::ParquetFileReader;

int Fail(const Status& status) {
  std::cerr << "floe: " << status.message() << "\n";
  return 1;
}

Result<std::unique_ptr<ParquetFileReader>> OpenParquet(const std::string& path) {
  FLOE_ASSIGN_OR_RETURN(auto io, FileIOForUri(path));
  Result<std::unique_ptr<InputFile>> file = io->OpenRead(path);
  if (!file.ok()) return file.status();
  return ParquetFileReader::Open(std::shared_ptr<InputFile>(std::move(*file)));
}

int RunSchema(const std::string& path) {
  auto reader = OpenParquet(path);
  if (!reader.ok()) return Fail(reader.status());
  std::ostringstream out;
  out << "floe schema:\n";
  PrintSchemaFields((*reader)->schema(), 2, out);
  out << "\nparquet schema:\n" << parquet::ParquetSchemaTreeToString((*reader)->metadata().schema);
  std::cout << out.str();
  return 0;
}

// Renders a statistics value (plain-encoded bytes) as the leaf's type.
std::string StatValue(const parquet::ColumnDescriptor& leaf, const std::string& bytes) {
  const parquet::PhysicalSpec spec = parquet::PhysicalSpecFor(leaf.physical_type, leaf.type_length);
  Column column;
  column.offsets = {0};
  if (spec.type == parquet::Type::BYTE_ARRAY) {
    column.data.assign(bytes.begin(), bytes.end());
    column.offsets.push_back(static_cast<int64_t>(bytes.size()));
  } else if (static_cast<int>(bytes.size()) == spec.width) {
    column.values.assign(bytes.begin(), bytes.end());
  } else {
    return "0x" + HexEncode(bytes);
  }
  if (!parquet::ConvertPhysicalToLeafType(leaf, 1, &column).ok()) return "(invalid)";
  std::string out;
  AppendJsonValue(column, 0, &out);
  return out;
}

std::string Quoted(const std::string& s) {
  Column column(String());
  column.AppendBytes(s);
  std::string out;
  AppendJsonValue(column, 0, &out);
  return out;
}

int RunMeta(const std::string& path) {
  auto reader = OpenParquet(path);
  if (!reader.ok()) return Fail(reader.status());
  const parquet::FileMetaData& meta = (*reader)->metadata();
  const auto& leaves = (*reader)->parquet_schema().leaves;
  std::ostringstream out;
  out << "file: " << path << "\n";
  out << "created_by: " << meta.created_by.value_or("(unknown)") << "\n";
  out << "version: " << meta.version << "\n";
  out << "rows: " << meta.num_rows << "\n";
  out << "row groups: " << meta.row_groups.size() << "\n";
  if (!meta.key_value_metadata.empty()) {
    out << "key-value metadata:\n";
    for (const auto& kv : meta.key_value_metadata) {
      out << "  " << Quoted(kv.key) << ": " << (kv.value ? Quoted(*kv.value) : "null") << "\n";
    }
  }
  for (size_t g = 0; g < meta.row_groups.size(); ++g) {
    const parquet::RowGroup& rg = meta.row_groups[g];
    out << "row group " << g << ": rows " << rg.num_rows << ", total bytes " << rg.total_byte_size << "\n";
    for (size_t c = 0; c < rg.columns.size() && c < leaves.size(); ++c) {
      const parquet::ColumnChunk& chunk = rg.columns[c];
      out << "  column " << leaves[c].PathString() << ":";
      if (!chunk.meta_data) {
        out << " (no metadata" << (chunk.has_crypto_metadata ? ", encrypted" : "") << ")\n";
        continue;
      }
      const parquet::ColumnMetaData& cm = *chunk.meta_data;
      out << " " << parquet::TypeName(cm.type) << ", codec " << parquet::CodecName(cm.codec) << ", encodings";
      for (size_t e = 0; e < cm.encodings.size(); ++e)
        out << (e ? "," : " ") << parquet::EncodingName(cm.encodings[e]);
      out << ", values " << cm.num_values << ", compressed " << cm.total_compressed_size
          << " B, uncompressed " << cm.total_uncompressed_size << " B\n";
      if (cm.statistics) {
        const parquet::Statistics& st = *cm.statistics;
        const auto& min = st.min_value ? st.min_value : st.min;
        const auto& max = st.max_value ? st.max_value : st.max;
        out << "    stats:";
        if (min) out << " min " << StatValue(leaves[c], *min);
        if (max) out << " max " << StatValue(leaves[c], *max);
        if (st.null_count) out << " nulls " << *st.null_count;
        if (st.distinct_count) out << " distinct " << *st.distinct_count;
        out << "\n";
      }
    }
  }
  std::cout << out.str();
  return 0;
}

struct CatOptions {
  std::string path;
  RowsOutputOptions output;
};

int RunCat(const CatOptions& options) {
  const std::string& format = options.output.format;
  if (format != "jsonl" && format != "csv") {
    return Fail(Status::InvalidArgument("unknown format '" + format + "' (expected jsonl or csv)"));
  }
  auto io = FileIOForUri(options.path);
  if (!io.ok()) return Fail(io.status());
  auto file = (*io)->OpenRead(options.path);
  if (!file.ok()) return Fail(file.status());
  auto reader = parquet::ParquetChunkedReader::Open(std::shared_ptr<InputFile>(std::move(*file)));
  if (!reader.ok()) return Fail(reader.status());
  Status st = PrintRows(**reader, options.output, std::cout);
  if (!st.ok()) return Fail(st.kind() == ErrorKind::kInvalidArgument ? st.WithContext(options.path) : st);
  return 0;
}

void AddSchemaCommand(CLI::App& parquet, ExitCode& exit_code) {
  auto* cmd =
      parquet.add_subcommand("schema", "Print a Parquet file's floe schema and raw Parquet schema tree");
  auto path = std::make_shared<std::string>();
  cmd->add_option("file", *path, "Parquet file")->required();
  cmd->callback([path, &exit_code] { exit_code.value = RunSchema(*path); });
}

void AddMetaCommand(CLI::App& parquet, ExitCode& exit_code) {
  auto* cmd =
      parquet.add_subcommand("meta", "Print a Parquet file's footer: row groups, column chunks, statistics");
  auto path = std::make_shared<std::string>();
  cmd->add_option("file", *path, "Parquet file")->required();
  cmd->callback([path, &exit_code] { exit_code.value = RunMeta(*path); });
}

void AddCatCommand(CLI::App& parquet, ExitCode& exit_code) {
  auto* cmd = parquet.add_subcommand("cat", "Print a Parquet file's rows as JSON lines or CSV");
  auto options = std::make_shared<CatOptions>();
  cmd->add_option("file", options->path, "Parquet file")->required();
  cmd->add_option("--columns", options->output.columns, "Comma-separated top-level columns (default: all)");
  cmd->add_option("--format", options->output.format, "jsonl (default) or csv");
  cmd->add_option("--limit", options->output.limit, "Print at most N rows");
  cmd->callback([options, &exit_code] { exit_code.value = RunCat(*options); });
}

}  // namespace

void RegisterParquetCommands(CLI::App& app, ExitCode& exit_code) {
  auto* parquet = app.add_subcommand("parquet", "Inspect and convert Parquet files");
  parquet->require_subcommand(1);
  AddSchemaCommand(*parquet, exit_code);
  AddMetaCommand(*parquet, exit_code);
  AddCatCommand(*parquet, exit_code);
  AddConvertCommand(*parquet, exit_code);
}

}  // namespace floe::cli
