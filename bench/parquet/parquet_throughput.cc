// floe's single-threaded Parquet decode and encode throughput on one file,
// the figures docs/benchmarks.md sets beside DuckDB's (duckdb_throughput.mjs).
//   parquet_throughput FILE [REPEATS] [decode|encode|both] [OUT]
// decode: open the file and read every row group into columns (all columns),
//   dropping each row group's columns once read, as the pipeline does (and as
//   DuckDB's streaming aggregate in duckdb_throughput.mjs does).
// encode: write the file's row groups (read once more, outside the timing) to
//   a temporary file, snappy, default options.
// Prints one JSON object with best-of-REPEATS seconds and the data sizes. A
// third argument "decode" skips the encode part (encode_s is then 0), for
// profiling decode alone; "encode" reads the file once (untimed, decode_s is
// then 0) and times only the writer, for profiling encode alone. OUT keeps
// the last written file there (to compare the writer's bytes across builds).
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "common/malloc_tuning.h"
#include "formats/parquet/file_reader.h"
#include "formats/parquet/file_writer.h"
#include "io/file_io.h"

namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

int Fail(const floe::Status& st) {
  std::cerr << "parquet_throughput: " << st.ToString() << "\n";
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  floe::TuneMallocForColumnBuffers();  // as the floe binary does
  if (argc < 2) {
    std::cerr << "usage: parquet_throughput FILE [REPEATS] [decode|encode|both] [OUT]\n";
    return 2;
  }
  std::string path = argv[1];
  int repeats = argc > 2 ? std::stoi(argv[2]) : 3;
  const std::string mode = argc > 3 ? argv[3] : "both";
  if (mode != "decode" && mode != "encode" && mode != "both") {
    std::cerr << "parquet_throughput: mode must be decode, encode or both\n";
    return 2;
  }
  const bool decode_only = mode == "decode";
  const bool encode_only = mode == "encode";
  const std::string keep_path = argc > 4 ? argv[4] : "";
  auto io = floe::MakeLocalFileIO();

  double best_decode = 1e30;
  std::vector<floe::RecordBatch> batches;
  floe::Schema schema;
  int64_t rows = 0, uncompressed = 0, compressed = 0, rows_seen = 0;
  const int decode_repeats = encode_only ? 1 : repeats;
  for (int r = 0; r < decode_repeats; ++r) {
    batches.clear();
    auto start = Clock::now();
    auto file = io->OpenRead(path);
    if (!file.ok()) return Fail(file.status());
    auto reader = floe::parquet::ParquetFileReader::Open(std::shared_ptr<floe::InputFile>(std::move(*file)));
    if (!reader.ok()) return Fail(reader.status());
    for (int g = 0; g < (*reader)->num_row_groups(); ++g) {
      auto batch = (*reader)->ReadRowGroup(g);
      if (!batch.ok()) return Fail(batch.status());
      rows_seen += batch->num_rows;
    }
    best_decode = std::min(best_decode, Seconds(start));
    if (r + 1 == decode_repeats && !decode_only) {
      for (int g = 0; g < (*reader)->num_row_groups(); ++g) {
        auto batch = (*reader)->ReadRowGroup(g);
        if (!batch.ok()) return Fail(batch.status());
        batches.push_back(std::move(*batch));
      }
    }
    schema = (*reader)->schema();
    rows = (*reader)->metadata().num_rows;
    uncompressed = compressed = 0;
    for (const auto& rg : (*reader)->metadata().row_groups) {
      for (const auto& chunk : rg.columns) {
        if (chunk.meta_data) {
          uncompressed += chunk.meta_data->total_uncompressed_size;
          compressed += chunk.meta_data->total_compressed_size;
        }
      }
    }
  }

  if (encode_only) best_decode = 0;
  if (rows_seen != rows * decode_repeats) return Fail(floe::Status::Corruption("row count mismatch"));
  std::string out_path = !keep_path.empty() ? keep_path
                                            : (std::filesystem::temp_directory_path() /
                                               ("floe-bench-" + std::to_string(::getpid()) + ".parquet"))
                                                  .string();
  double best_encode = decode_only ? 0 : 1e30;
  int64_t out_size = 0;
  for (int r = 0; r < (decode_only ? 0 : repeats); ++r) {
    auto start = Clock::now();
    auto out = io->Create(out_path);
    if (!out.ok()) return Fail(out.status());
    floe::parquet::ParquetWriterOptions options;
    auto writer = floe::parquet::ParquetFileWriter::Open(std::move(*out), schema, options);
    if (!writer.ok()) return Fail(writer.status());
    for (const auto& batch : batches) {
      floe::Status st = (*writer)->Write(batch);
      if (!st.ok()) return Fail(st);
    }
    auto written = (*writer)->Close();
    if (!written.ok()) return Fail(written.status());
    best_encode = std::min(best_encode, Seconds(start));
    out_size = written->file_size;
  }
  if (!decode_only && keep_path.empty()) std::filesystem::remove(out_path);

  std::printf(
      "{\"reader\":\"floe\",\"threads\":1,\"rows\":%lld,\"uncompressed_bytes\":%lld,\"compressed_bytes\":%"
      "lld,"
      "\"decode_s\":%.6f,\"encode_s\":%.6f,\"encoded_bytes\":%lld}\n",
      static_cast<long long>(rows), static_cast<long long>(uncompressed), static_cast<long long>(compressed),
      best_decode, best_encode, static_cast<long long>(out_size));
  return 0;
}
