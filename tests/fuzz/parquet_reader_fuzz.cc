// Fuzz target: the whole Parquet read path (footer, schema mapping, pages,
// decompression, decoding, record assembly) on arbitrary bytes, and the read
// of some rows of a row group (pages located by the offset index, only the
// rows' values copied), and the same file read as chunks, large row groups
// in slices of their rows (ParquetChunkedReader with a tiny slice size).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "columnar/json_format.h"
#include "formats/parquet/file_reader.h"
#include "formats/parquet/parquet_chunked_reader.h"
#include "io/memory_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > (size_t{4} << 20)) return 0;
  auto file =
      std::make_shared<floe::MemoryInputFile>("fuzz.parquet", std::vector<uint8_t>(data, data + size));
  // Bounded sizes keep a tiny input from asking for gigabytes legitimately.
  floe::parquet::ReaderLimits limits;
  limits.max_values_per_chunk = int64_t{1} << 22;
  limits.max_page_size = int64_t{64} << 20;
  auto reader = floe::parquet::ParquetFileReader::Open(file, limits);
  if (!reader.ok()) return 0;
  for (int g = 0; g < (*reader)->num_row_groups() && g < 64; ++g) {
    auto batch = (*reader)->ReadRowGroup(g);
    if (!batch.ok()) continue;
    for (const auto& column : batch->columns) {
      if (!column.Validate().empty()) __builtin_trap();  // a reader must never build a malformed column
    }
    std::string text;
    for (int64_t row = 0; row < batch->num_rows && row < 64; ++row) floe::AppendJsonRow(*batch, row, &text);
    // The first, every 7th and the last row. With an untrusted offset index
    // the rows may differ from the whole group's, but never be malformed.
    std::vector<int64_t> rows;
    for (int64_t row = 0; row < batch->num_rows && rows.size() < 4096; row += 7) rows.push_back(row);
    if (batch->num_rows > 0 && rows.back() != batch->num_rows - 1) rows.push_back(batch->num_rows - 1);
    auto some = (*reader)->ReadRowGroupRows(g, rows);
    if (!some.ok()) continue;
    for (const auto& column : some->columns) {
      if (!column.Validate().empty() || column.length != static_cast<int64_t>(rows.size())) __builtin_trap();
    }
  }
  // Slices of at most 4 KiB decoded: every row group the footer lets be
  // sliced is. A chunk read must hold chunk_rows(chunk) well-formed rows.
  auto chunked = floe::parquet::ParquetChunkedReader::Open(file, limits, 4096);
  if (!chunked.ok()) return 0;
  for (int chunk = 0; chunk < (*chunked)->num_chunks() && chunk < 256; ++chunk) {
    if ((*chunked)->chunk_rows(chunk) < 0 || (*chunked)->chunk_bytes(chunk) < 0) __builtin_trap();
    auto rows = (*chunked)->ReadChunk(chunk, {});
    if (!rows.ok()) continue;
    if (rows->num_rows != (*chunked)->chunk_rows(chunk)) __builtin_trap();
    for (const auto& column : rows->columns) {
      if (!column.Validate().empty() || column.length != rows->num_rows) __builtin_trap();
    }
  }
  return 0;
}
