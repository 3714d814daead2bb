// Single-threaded decode throughput of floe's text and Avro readers: opens a
// file through its ChunkedReader and materialises every column of every
// chunk, best of REPEATS. Prints one JSON object (seconds, rows, bytes).
//   format_throughput FORMAT FILE REPEATS [SCHEMA]
// FORMAT: jsonl | json | csv | avro. SCHEMA (jsonl/csv): "name TYPE, ..." in
// schema_hints syntax; given, it is the known schema (no inference, no
// sniffing of types); absent, types are inferred from the default sample.
#include <chrono>
#include <cstdio>
#include <string>

#include "common/malloc_tuning.h"
#include "formats/avro/avro_file_reader.h"
#include "formats/csv/csv_file_reader.h"
#include "formats/json/json_file_reader.h"
#include "formats/schema_hints.h"
#include "io/file_io.h"

using namespace floe;

namespace {

Result<std::unique_ptr<formats::ChunkedReader>> OpenReader(const std::string& format, const std::string& path,
                                                           const std::string& schema_text) {
  FLOE_ASSIGN_OR_RETURN(auto file, MakeLocalFileIO()->OpenRead(path));
  std::shared_ptr<InputFile> shared(std::move(file));
  Schema known;
  if (!schema_text.empty()) {
    FLOE_ASSIGN_OR_RETURN(auto hints, formats::SchemaHints::Parse(schema_text));
    for (const auto& hint : hints.hints()) known.push_back(MakeField(hint.path[0], hint.type));
  }
  if (format == "jsonl" || format == "json") {
    json::JsonReadOptions options;
    options.format = format;
    options.decode.inference.infer_column_types = true;
    options.decode.known = known;
    if (!known.empty()) options.decode.infer_new_fields = false;
    FLOE_ASSIGN_OR_RETURN(auto reader, json::JsonFileReader::Open(shared, std::move(options)));
    return std::unique_ptr<formats::ChunkedReader>(std::move(reader));
  }
  if (format == "csv") {
    csv::CsvReadOptions options;
    options.inference.infer_column_types = true;
    if (!known.empty()) {
      options.known = known;
      options.delimiter = ",";
      options.quote = "\"";
      options.header = true;
    }
    FLOE_ASSIGN_OR_RETURN(auto reader, csv::CsvFileReader::Open(shared, std::move(options)));
    return std::unique_ptr<formats::ChunkedReader>(std::move(reader));
  }
  if (format == "avro") {
    FLOE_ASSIGN_OR_RETURN(auto reader, avro::AvroFileReader::Open(shared, {}));
    return std::unique_ptr<formats::ChunkedReader>(std::move(reader));
  }
  return Status::InvalidArgument("unknown format " + format);
}

}  // namespace

int main(int argc, char** argv) {
  TuneMallocForColumnBuffers();
  if (argc < 4) {
    std::fprintf(stderr, "usage: format_throughput FORMAT FILE REPEATS [SCHEMA]\n");
    return 2;
  }
  const std::string format = argv[1], path = argv[2];
  const int repeats = std::stoi(argv[3]);
  const std::string schema = argc > 4 ? argv[4] : "";
  double best = 1e30, best_open = 1e30;
  int64_t rows = 0;
  for (int r = 0; r < repeats; ++r) {
    const auto start = std::chrono::steady_clock::now();
    auto reader = OpenReader(format, path, schema);
    best_open =
        std::min(best_open, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    if (!reader.ok()) {
      std::fprintf(stderr, "%s\n", reader.status().ToString().c_str());
      return 1;
    }
    rows = 0;
    for (int c = 0; c < (*reader)->num_chunks(); ++c) {
      auto batch = (*reader)->ReadChunk(c, {});
      if (!batch.ok()) {
        std::fprintf(stderr, "%s\n", batch.status().ToString().c_str());
        return 1;
      }
      rows += batch->num_rows;
    }
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  auto size = MakeLocalFileIO()->Stat(path);
  std::printf(
      "{\"reader\":\"floe\",\"format\":\"%s\",\"rows\":%lld,\"bytes\":%lld,\"seconds\":%.4f,\"open_seconds\":"
      "%.4f}\n",
      format.c_str(), static_cast<long long>(rows), static_cast<long long>(size.ok() ? size->size : 0), best,
      best_open);
  return 0;
}
