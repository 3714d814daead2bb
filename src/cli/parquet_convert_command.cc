// `floe parquet convert IN OUT`: reads IN one row group at a time and writes
// OUT with floe's Parquet writer, keeping the schema (field ids included),
// the key-value metadata and every value. Without --row-group-rows the
// input's row group boundaries are kept.
#include "cli/parquet_convert_command.h"

#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "formats/parquet/file_reader.h"
#include "formats/parquet/file_writer.h"
#include "io/file_io.h"
#include "io/s3/file_io_factory.h"

namespace floe::cli {
namespace {

struct ConvertOptions {
  std::string input;
  std::string output;
  std::string codec = "snappy";
  int level = 0;
  std::optional<int64_t> row_group_rows;
  std::optional<int64_t> page_bytes;
  int page_version = 1;
  bool no_dictionary = false;
  bool delta = false;
};

Result<Codec> ParseCodec(const std::string& name) {
  if (name == "snappy") return Codec::kSnappy;
  if (name == "zstd") return Codec::kZstd;
  if (name == "gzip") return Codec::kGzip;
  if (name == "lz4" || name == "lz4_raw") return Codec::kLz4Raw;
  if (name == "brotli") return Codec::kBrotli;
  if (name == "none" || name == "uncompressed") return Codec::kNone;
  return Status::InvalidArgument("unknown codec '" + name +
                                 "' (use snappy, zstd, gzip, lz4, brotli or none)");
}

Status Convert(const ConvertOptions& options) {
  parquet::ParquetWriterOptions writer_options;
  FLOE_ASSIGN_OR_RETURN(writer_options.codec, ParseCodec(options.codec));
  writer_options.compression_level = options.level;
  if (options.row_group_rows) {
    if (*options.row_group_rows < 1) return Status::InvalidArgument("--row-group-rows must be at least 1");
    writer_options.row_group_max_rows = *options.row_group_rows;
  }
  if (options.page_bytes) {
    if (*options.page_bytes < 1) return Status::InvalidArgument("--page-bytes must be at least 1");
    writer_options.page_max_bytes = *options.page_bytes;
  }
  if (options.page_version != 1 && options.page_version != 2) {
    return Status::InvalidArgument("--page-version must be 1 or 2");
  }
  writer_options.data_page_version = options.page_version;
  writer_options.dictionary_enabled = !options.no_dictionary;
  writer_options.delta_encodings = options.delta;

  FLOE_ASSIGN_OR_RETURN(auto io, FileIOForUri(options.input));
  FLOE_ASSIGN_OR_RETURN(auto input, io->OpenRead(options.input));
  FLOE_ASSIGN_OR_RETURN(auto reader,
                        parquet::ParquetFileReader::Open(std::shared_ptr<InputFile>(std::move(input))));
  writer_options.key_value_metadata = reader->metadata().key_value_metadata;
  FLOE_ASSIGN_OR_RETURN(auto output_io, FileIOForUri(options.output));
  FLOE_ASSIGN_OR_RETURN(auto output, output_io->Create(options.output));
  FLOE_ASSIGN_OR_RETURN(
      auto writer, parquet::ParquetFileWriter::Open(std::move(output), reader->schema(), writer_options));
  for (int g = 0; g < reader->num_row_groups(); ++g) {
    FLOE_ASSIGN_OR_RETURN(RecordBatch batch, reader->ReadRowGroup(g));
    FLOE_RETURN_IF_ERROR(writer->Write(batch));
    if (!options.row_group_rows) FLOE_RETURN_IF_ERROR(writer->FlushRowGroup());
  }
  FLOE_ASSIGN_OR_RETURN(auto written, writer->Close());
  std::cout << options.output << ": " << written.num_rows << " rows, " << written.metadata.row_groups.size()
            << " row groups, " << written.file_size << " bytes\n";
  return Status::OK();
}

}  // namespace

void AddConvertCommand(CLI::App& parquet, ExitCode& exit_code) {
  auto* cmd =
      parquet.add_subcommand("convert", "Rewrite a Parquet file with floe's writer (schema and values kept)");
  auto options = std::make_shared<ConvertOptions>();
  cmd->add_option("input", options->input, "Parquet file to read")->required();
  cmd->add_option("output", options->output, "Parquet file to write")->required();
  cmd->add_option("--codec", options->codec, "snappy (default), zstd, gzip, lz4 (LZ4_RAW), brotli or none");
  cmd->add_option("--level", options->level, "Compression level (0: the codec's default)");
  cmd->add_option("--row-group-rows", options->row_group_rows,
                  "Rows per row group (default: keep the input's row groups)");
  cmd->add_option("--page-bytes", options->page_bytes, "Target data page size in bytes (default 1 MiB)");
  cmd->add_option("--page-version", options->page_version, "Data page version: 1 (default) or 2");
  cmd->add_flag("--no-dictionary", options->no_dictionary, "Do not dictionary-encode");
  cmd->add_flag("--delta", options->delta, "DELTA_BINARY_PACKED / DELTA_BYTE_ARRAY for non-dictionary pages");
  cmd->callback([options, &exit_code] {
    Status status = Convert(*options);
    if (!status.ok()) {
      std::cerr << "floe: " << status.message() << "\n";
      exit_code.value = 1;
      return;
    }
    exit_code.value = 0;
  });
}

}  // namespace floe::cli
