// Reading one column chunk: its pages (dictionary, data v1/v2, index pages
// skipped), decompression, optional page CRC verification, level decoding
// and value decoding, producing the leaf's levels and dense values.
//
// Contract: the chunk's byte range is validated against the file size and
// read with one ranged read; memory is bounded by the chunk size plus its
// decoded values, and the number of values by ReaderLimits. Errors are
// Corruption/NotSupported naming the page (index and offset) that failed;
// the caller adds the column path, row group and file.
//
// ReadFlatColumnChunk is the path for a top-level primitive field without
// repetition and with at most one definition level (the usual flat column):
// definition levels become the validity bitmap page by page and values are
// decoded straight into their slots, so no levels are kept and no pass
// spreads values around nulls. Output buffers are sized once from the
// chunk's value count (capped, then grown geometrically), and all transient
// bytes live in a caller-owned ChunkScratch reused across chunks.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "columnar/column.h"
#include "common/status.h"
#include "formats/parquet/reader/scratch.h"
#include "formats/parquet/schema.h"
#include "formats/parquet/thrift/parquet_types.h"
#include "io/file_io.h"

namespace floe::parquet {

struct ReaderLimits {
  int64_t max_values_per_chunk = int64_t{1} << 31;              // level entries in one column chunk
  int64_t max_page_size = std::numeric_limits<int32_t>::max();  // uncompressed bytes of one page
  // Serialized footer (FileMetaData) bytes; a larger footer is refused before
  // it is read. Parsed, a footer takes several times its size in memory
  // (kFooterMemoryFactor), so callers with a memory budget derive this from it.
  int64_t max_footer_bytes = int64_t{64} << 20;
};

// At most about how many bytes of memory one serialized footer byte takes
// once parsed (measured: ~20 on footers of many small row groups, the worst
// case: a 31-byte row group becomes ~600 bytes of structs).
inline constexpr int64_t kFooterMemoryFactor = 32;

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
// `scratch` may be null (temporary buffers are then used).
Status ReadColumnChunk(InputFile& file, int64_t file_size, const ColumnDescriptor& leaf,
                       const ColumnChunk& chunk, const ReaderLimits& limits, int64_t extra_tail_bytes,
                       LeafData* out, ChunkScratch* scratch = nullptr);

// True when ReadFlatColumnChunk can read `leaf` as the whole top-level field
// planned by `node`.
bool IsFlatLeaf(const ColumnDescriptor& leaf, const LevelNode& node);

// Reads the chunk into `out`: one slot per level entry, of the leaf's floe
// type, nulls in the validity bitmap (absent when there are none).
Status ReadFlatColumnChunk(InputFile& file, int64_t file_size, const ColumnDescriptor& leaf,
                           const ColumnChunk& chunk, const ReaderLimits& limits, int64_t extra_tail_bytes,
                           ChunkScratch* scratch, Column* out);

// Reads rows `rows` (ascending row indexes within the row group of
// `num_rows` rows) of a flat leaf into `out`, decoding only the pages that
// hold them: `offset_index` (the chunk's, from the page index) locates the
// pages; the dictionary page is read when there is one. An offset index that
// does not fit the chunk is Corruption; a row out of range or out of order
// is InvalidArgument.
Status ReadFlatColumnRows(InputFile& file, int64_t file_size, const ColumnDescriptor& leaf,
                          const ColumnChunk& chunk, const OffsetIndex& offset_index, int64_t num_rows,
                          const std::vector<int64_t>& rows, const ReaderLimits& limits, ChunkScratch* scratch,
                          Column* out);

}  // namespace floe::parquet
