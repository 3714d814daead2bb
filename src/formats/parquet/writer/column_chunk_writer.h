// Writes one column chunk (one leaf of one row group) from its buffered
// LeafValues: optional dictionary page, data pages (v1 or v2) cut by rows
// and bytes, compression, CRCs, page statistics, and the chunk's metadata
// and page index entries.
//
// Contract: EncodeColumnChunk only computes (no I/O, touches nothing but its
// arguments, so chunks of one row group may be encoded on several threads):
// the pages in memory and the result with offsets as if the chunk started
// at file offset 0. PlaceColumnChunk moves those offsets to the chunk's real
// start; WriteEncodedColumnChunk writes the pages to `out` at its current
// position and places them there. WriteColumnChunk = encode + write. The
// bytes do not depend on where or on which thread a chunk is encoded.
// Every offset and size in the result is exact (sizes include page headers).
// Pages start at row boundaries, so the offset index is valid for nested
// columns. The column index is absent when the leaf has no sort order or a
// non-null page has no min/max (only NaN values).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "common/status.h"
#include "formats/parquet/thrift/parquet_types.h"
#include "formats/parquet/writer/leaf_shredder.h"
#include "formats/parquet/writer/schema_builder.h"
#include "formats/parquet/writer/value_statistics.h"
#include "formats/parquet/writer/writer_options.h"
#include "io/file_io.h"

namespace floe::parquet {

struct ColumnChunkResult {
  ColumnChunk chunk;  // meta_data set; page index offsets are the caller's
  std::optional<ColumnIndex> column_index;
  OffsetIndex offset_index;
  ValueStats stats;
  int64_t null_count = 0;
};

// A chunk's pages, encoded but not yet written: the dictionary page (empty
// when none) and the data pages, which follow it directly in the file.
struct EncodedColumnChunk {
  std::vector<uint8_t> dictionary_page;
  std::vector<uint8_t> data_pages;
  ColumnChunkResult result;  // offsets relative to the chunk's start
  int64_t size() const { return static_cast<int64_t>(dictionary_page.size() + data_pages.size()); }
};

CompressionCodec ParquetCodecOf(Codec codec);

Result<EncodedColumnChunk> EncodeColumnChunk(const WriteLeaf& leaf, const LeafValues& values,
                                             const ParquetWriterOptions& options);
void PlaceColumnChunk(int64_t chunk_start, ColumnChunkResult* result);
Result<ColumnChunkResult> WriteEncodedColumnChunk(EncodedColumnChunk encoded, OutputFile* out);

Result<ColumnChunkResult> WriteColumnChunk(const WriteLeaf& leaf, const LeafValues& values,
                                           const ParquetWriterOptions& options, OutputFile* out);

}  // namespace floe::parquet
