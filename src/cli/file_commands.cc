// `floe file schema FILE` and `floe file cat FILE`: inspect a landing file of
// any format floe reads (Parquet, JSON lines / JSON, CSV, Avro), found by its
// name and first bytes, or forced with --input-format; each format's options
// are flags. Handlers only parse options and call the library.
#include <algorithm>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>

#include "cli/commands.h"
#include "cli/rows_output.h"
#include "formats/avro/avro_file_reader.h"
#include "formats/csv/csv_file_reader.h"
#include "formats/json/json_file_reader.h"
#include "formats/parquet/parquet_chunked_reader.h"
#include "formats/unit_bytes.h"
#include "io/s3/file_io_factory.h"

namespace floe::cli {
namespace {

struct FileOptions {
  std::string path;
  std::string input_format = "auto";
  std::string strip_outer_array = "auto";  // json: auto = when the file starts with '['
  std::string delimiter, quote, escape, header = "auto";
  bool quote_set = false, escape_set = false, delimiter_set = false;
  std::string null_string;
  int64_t skip_rows = 0;
  std::string encoding = "utf-8";
  std::string timestamp_format, date_format;
  std::string infer_column_types = "true";
  std::string schema_hints;
  int64_t schema_sample_bytes = int64_t{16} << 20;
  std::string compression = "auto";
  bool nested_as_json = false;
  std::string on_bad_record = "rescue";
  RowsOutputOptions output;
};

Result<std::string> DetectFormat(const FileOptions& options, const std::shared_ptr<InputFile>& file,
                                 const formats::CompressionChoice& compression, char* first_byte) {
  *first_byte = '\0';
  if (options.input_format != "auto") return options.input_format;
  FLOE_ASSIGN_OR_RETURN(int64_t size, file->Size());
  uint8_t magic[4] = {0, 0, 0, 0};
  if (size >= 4) FLOE_RETURN_IF_ERROR(file->ReadAt(0, 4, magic));
  if (std::equal(magic, magic + 4, "PAR1")) return std::string("parquet");
  if (magic[0] == 'O' && magic[1] == 'b' && magic[2] == 'j' && magic[3] == 1) return std::string("avro");
  const std::string ext = formats::DataExtension(file->path());
  if (ext == "parquet" || ext == "parq") return std::string("parquet");
  if (ext == "avro") return std::string("avro");
  if (ext == "csv" || ext == "tsv" || ext == "psv") return std::string("csv");
  if (ext == "jsonl" || ext == "ndjson") return std::string("jsonl");
  FLOE_ASSIGN_OR_RETURN(*first_byte, formats::FirstTextByte(file, compression));
  if (ext == "json") return std::string("json");
  if (*first_byte == '{') return std::string("jsonl");
  if (*first_byte == '[') return std::string("json");
  return std::string("csv");
}

Result<formats::BadDataPolicy> Policy(const std::string& text) {
  if (text == "rescue") return formats::BadDataPolicy::kRescue;
  if (text == "fail") return formats::BadDataPolicy::kFail;
  return Status::InvalidArgument("--on-bad-record must be rescue or fail, not '" + text + "'");
}

Result<bool> Boolean(const std::string& flag, const std::string& text) {
  if (text == "true") return true;
  if (text == "false") return false;
  return Status::InvalidArgument(flag + " must be true or false, not '" + text + "'");
}

struct OpenedFile {
  std::unique_ptr<formats::ChunkedReader> reader;
  std::string format;
  std::vector<std::string> details;  // "delimiter ','", "codec deflate", ...
};

std::string Shown(char c) {
  if (c == '\0') return "none";
  if (c == '\t') return "'\\t'";
  return std::string("'") + c + "'";
}

Result<OpenedFile> OpenAny(const FileOptions& options) {
  FLOE_ASSIGN_OR_RETURN(auto io, FileIOForUri(options.path));
  FLOE_ASSIGN_OR_RETURN(auto opened, io->OpenRead(options.path));
  std::shared_ptr<InputFile> file(std::move(opened));
  FLOE_ASSIGN_OR_RETURN(formats::CompressionChoice compression,
                        formats::ParseCompressionChoice(options.compression));
  char first = '\0';
  FLOE_ASSIGN_OR_RETURN(std::string format, DetectFormat(options, file, compression, &first));
  formats::TypeInferenceOptions inference;
  FLOE_ASSIGN_OR_RETURN(inference.infer_column_types,
                        Boolean("--infer-column-types", options.infer_column_types));
  inference.timestamp_format = options.timestamp_format;
  inference.date_format = options.date_format;
  FLOE_ASSIGN_OR_RETURN(formats::SchemaHints hints, formats::SchemaHints::Parse(options.schema_hints));
  FLOE_ASSIGN_OR_RETURN(formats::BadDataPolicy policy, Policy(options.on_bad_record));
  OpenedFile result;
  result.format = format;
  if (format == "parquet") {
    FLOE_ASSIGN_OR_RETURN(result.reader, parquet::ParquetChunkedReader::Open(file));
  } else if (format == "avro") {
    FLOE_ASSIGN_OR_RETURN(auto reader, avro::AvroFileReader::Open(file, {}));
    result.details.push_back(std::string("codec ") + avro::AvroCodecName(reader->codec()));
    for (const auto& alias : reader->field_aliases()) {
      std::string path, names;
      for (const auto& part : alias.path) path += (path.empty() ? "" : ".") + part;
      for (const auto& name : alias.aliases) names += (names.empty() ? "" : ", ") + name;
      result.details.push_back("field " + path + " aliases " + names);
    }
    result.reader = std::move(reader);
  } else if (format == "jsonl" || format == "json") {
    json::JsonReadOptions json;
    json.format = format;
    if (format == "json") {
      if (options.strip_outer_array == "auto") {
        if (first == '\0') {
          FLOE_ASSIGN_OR_RETURN(first, formats::FirstTextByte(file, compression));
        }
        json.strip_outer_array = first == '[';
      } else {
        FLOE_ASSIGN_OR_RETURN(json.strip_outer_array,
                              Boolean("--strip-outer-array", options.strip_outer_array));
      }
    }
    json.decode.inference = inference;
    json.decode.schema_hints = hints;
    json.decode.nested_as_json = options.nested_as_json;
    json.decode.on_broken = json.decode.on_mismatch = policy;
    json.schema_sample_bytes = options.schema_sample_bytes;
    json.compression = compression;
    if (json.strip_outer_array) result.details.push_back("strip_outer_array");
    FLOE_ASSIGN_OR_RETURN(result.reader, json::JsonFileReader::Open(file, std::move(json)));
  } else if (format == "csv") {
    csv::CsvReadOptions csv;
    if (options.delimiter_set) {
      csv.delimiter = options.delimiter;
    } else if (formats::DataExtension(options.path) == "tsv") {
      csv.delimiter = "\t";
    }
    if (options.quote_set) csv.quote = options.quote;
    if (options.escape_set) csv.escape = options.escape;
    if (options.header != "auto") {
      FLOE_ASSIGN_OR_RETURN(csv.header, Boolean("--header", options.header));
    }
    csv.null_string = options.null_string;
    csv.skip_rows = options.skip_rows;
    csv.encoding = options.encoding;
    csv.inference = inference;
    csv.schema_hints = hints;
    csv.on_bad_record = csv.on_mismatch = policy;
    csv.schema_sample_bytes = options.schema_sample_bytes;
    csv.compression = compression;
    FLOE_ASSIGN_OR_RETURN(auto reader, csv::CsvFileReader::Open(file, std::move(csv)));
    const csv::CsvDialect& d = reader->dialect();
    result.details.push_back("delimiter " + Shown(d.delimiter) + ", quote " + Shown(d.quote) + ", escape " +
                             Shown(d.escape) + ", header " + (reader->header() ? "true" : "false"));
    result.reader = std::move(reader);
  } else {
    return Status::InvalidArgument("--input-format '" + format +
                                   "' is not one of auto, parquet, jsonl, json, csv, avro");
  }
  return result;
}

int Fail(const Status& status) {
  std::cerr << "floe: " << status.message() << "\n";
  return 1;
}

int RunSchema(const FileOptions& options) {
  auto opened = OpenAny(options);
  if (!opened.ok()) return Fail(opened.status());
  formats::ChunkedReader& reader = *opened->reader;
  int64_t rows = 0;
  for (int c = 0; c < reader.num_chunks(); ++c) rows += reader.chunk_rows(c);
  std::ostringstream out;
  out << "file: " << options.path << "\n";
  out << "format: " << opened->format << "\n";
  for (const std::string& detail : opened->details) out << "  " << detail << "\n";
  out << "rows: " << rows << " in " << reader.num_chunks() << " chunk"
      << (reader.num_chunks() == 1 ? "" : "s") << "\n";
  out << "schema:\n";
  PrintSchemaFields(reader.schema(), 2, out);
  std::cout << out.str();
  return 0;
}

int RunCat(const FileOptions& options) {
  auto opened = OpenAny(options);
  if (!opened.ok()) return Fail(opened.status());
  Status st = PrintRows(*opened->reader, options.output, std::cout);
  return st.ok() ? 0 : Fail(st);
}

void AddFormatOptions(CLI::App& cmd, FileOptions& options) {
  cmd.add_option("file", options.path, "The file (a path or s3:// URI)")->required();
  cmd.add_option("--input-format", options.input_format,
                 "auto (default: by name and magic bytes), parquet, jsonl, json, csv or avro");
  cmd.add_option("--compression", options.compression, "auto (default), none, gzip, zstd, lz4 or bzip2");
  cmd.add_option("--infer-column-types", options.infer_column_types,
                 "true (default here) or false: every text field a string");
  cmd.add_option("--schema-hints", options.schema_hints, "\"name TYPE, ...\": types that override inference");
  cmd.add_option("--schema-sample-bytes", options.schema_sample_bytes,
                 "Bytes of records the schema is inferred from (0 = the whole file; default 16 MiB)");
  cmd.add_option("--timestamp-format", options.timestamp_format,
                 "strftime format of timestamps (default ISO 8601)");
  cmd.add_option("--date-format", options.date_format, "strftime format of dates (default ISO 8601)");
  cmd.add_option(
      "--on-bad-record", options.on_bad_record,
      "rescue (default: into _rescued_data) or fail, for broken records and values that do not fit");
  cmd.add_option("--strip-outer-array", options.strip_outer_array,
                 "json: true, false or auto (default: when the file starts with '[')");
  cmd.add_flag("--nested-as-json", options.nested_as_json,
               "json: objects and arrays become JSON text columns");
  cmd.add_option("--delimiter", options.delimiter, "csv: one character (\\t for a tab; default: sniffed)")
      ->each([&options](const std::string&) { options.delimiter_set = true; });
  cmd.add_option("--quote", options.quote, "csv: one character, or \"\" for none (default: sniffed)")
      ->each([&options](const std::string&) { options.quote_set = true; });
  cmd.add_option("--escape", options.escape,
                 "csv: one character, or \"\" for none (default: the quote, doubled)")
      ->each([&options](const std::string&) { options.escape_set = true; });
  cmd.add_option("--header", options.header, "csv: true, false or auto (default: sniffed)");
  cmd.add_option("--null-string", options.null_string,
                 "csv: the unquoted text that means null (default: empty)");
  cmd.add_option("--skip-rows", options.skip_rows, "csv: lines to skip before the header or data");
  cmd.add_option("--encoding", options.encoding, "csv: utf-8 (default) or latin-1");
}

}  // namespace

void RegisterFileCommands(CLI::App& app, ExitCode& exit_code) {
  auto* file = app.add_subcommand("file", "Inspect a landing file of any format floe reads");
  file->require_subcommand(1);

  auto* schema = file->add_subcommand("schema", "Print a file's format, dialect, row count and floe schema");
  auto schema_options = std::make_shared<FileOptions>();
  AddFormatOptions(*schema, *schema_options);
  schema->callback([schema_options, &exit_code] { exit_code.value = RunSchema(*schema_options); });

  auto* cat = file->add_subcommand("cat", "Print a file's rows as JSON lines or CSV");
  auto cat_options = std::make_shared<FileOptions>();
  AddFormatOptions(*cat, *cat_options);
  cat->add_option("--format", cat_options->output.format, "Output: jsonl (default) or csv");
  cat->add_option("--columns", cat_options->output.columns,
                  "Comma-separated top-level columns (default: all)");
  cat->add_option("--limit", cat_options->output.limit, "Print at most N rows");
  cat->callback([cat_options, &exit_code] { exit_code.value = RunCat(*cat_options); });
}

}  // namespace floe::cli
