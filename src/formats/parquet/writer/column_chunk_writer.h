// Writes one column chunk (one leaf of one row group) from its buffered
// LeafValues: optional dictionary page, data pages (v1 or v2) cut by rows
// and bytes, compression, CRCs, page statistics, and the chunk's metadata
// and page index entries.
//
// Contract: the chunk's pages are written to `out` at its current position;
// every offset and size in the result is exact (sizes include page headers).
// Pages start at row boundaries, so the offset index is valid for nested
// columns. The column index is absent when the leaf has no sort order or a
// non-null page has no min/max (only NaN values).
#pragma once

#include <cstdint>
#include <optional>

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

CompressionCodec ParquetCodecOf(Codec codec);

Result<ColumnChunkResult> WriteColumnChunk(const WriteLeaf& leaf, const LeafValues& values,
                                           const ParquetWriterOptions& options, OutputFile* out);

}  // namespace floe::parquet
