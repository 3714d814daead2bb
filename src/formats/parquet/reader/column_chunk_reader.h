// Reading one column chunk: its pages (dictionary, data v1/v2, index pages
// skipped), decompression, optional page CRC verification, level decoding
// and value decoding, producing the leaf's levels and dense values.
//
// Contract: the chunk's byte range is validated against the file size and
// read with one ranged read; memory is bounded by the chunk size plus its
// decoded values, and the number of values by ReaderLimits. Errors are
// Corruption/NotSupported naming the page (index and offset) that failed;
// the caller adds the column path, row group and file.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "columnar/column.h"
#include "common/status.h"
#include "formats/parquet/schema.h"
#include "formats/parquet/thrift/parquet_types.h"
#include "io/file_io.h"

namespace floe::parquet {

struct ReaderLimits {
  int64_t max_values_per_chunk = int64_t{1} << 31;              // level entries in one column chunk
  int64_t max_page_size = std::numeric_limits<int32_t>::max();  // uncompressed bytes of one page
};

// The content of one column chunk of a leaf.
struct LeafData {
  std::vector<int16_t> def_levels;  // one per level entry; empty when max_def_level == 0
  std::vector<int16_t> rep_levels;  // one per level entry; empty when max_rep_level == 0
  int64_t num_levels = 0;
  Column values;  // the non-null values, densely, in the leaf's floe type
};

// `extra_tail_bytes` extends the chunk's byte range (clamped to the file):
// old parquet-mr versions understated total_compressed_size of chunks with a
// dictionary page (PARQUET-816).
Status ReadColumnChunk(InputFile& file, int64_t file_size, const ColumnDescriptor& leaf,
                       const ColumnChunk& chunk, const ReaderLimits& limits, int64_t extra_tail_bytes,
                       LeafData* out);

}  // namespace floe::parquet
