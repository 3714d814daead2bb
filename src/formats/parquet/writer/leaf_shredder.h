// Shredding of floe columns into Parquet leaf columns: definition and
// repetition levels plus the leaf's non-null values in their physical
// (PLAIN-ready) form, buffered for one row group.
//
// Contract: ShredRows appends rows [begin, end) of the top-level column to
// a LeafValues buffer. Fixed-width physical values are stored little-endian
// as PLAIN writes them (BOOLEAN one byte 0/1, INT96 12 bytes, FLBA
// big-endian decimals); BYTE_ARRAY values as offsets + data. A null where
// the schema says REQUIRED, or a decimal that does not fit its physical
// type, is InvalidArgument naming the column; nothing is appended then for
// the failing row range's remaining rows (the caller discards the buffer).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "columnar/column.h"
#include "common/status.h"
#include "formats/parquet/reader/scratch.h"
#include "formats/parquet/writer/schema_builder.h"

namespace floe::parquet {

// The buffers are ScratchVectors: growing them does not zero-fill, as every
// appended element is written by the shredder.
struct LeafValues {
  ScratchVector<uint16_t> def_levels;  // empty when max_def_level == 0
  ScratchVector<uint16_t> rep_levels;  // empty when max_rep_level == 0
  int64_t num_levels = 0;              // values including nulls (= ColumnMetaData.num_values)
  int64_t num_rows = 0;
  int64_t num_present = 0;            // values with def == max_def (stored below)
  ScratchVector<uint8_t> fixed;       // num_present * width bytes (fixed-width physical types)
  ScratchVector<int64_t> offsets{0};  // BYTE_ARRAY: num_present + 1 end offsets into data
  ScratchVector<uint8_t> data;

  std::string_view ByteArrayAt(int64_t i) const {
    return std::string_view(
        reinterpret_cast<const char*>(data.data()) + offsets[static_cast<size_t>(i)],
        static_cast<size_t>(offsets[static_cast<size_t>(i) + 1] - offsets[static_cast<size_t>(i)]));
  }
  // Buffered bytes, an estimate of the uncompressed size of this leaf.
  int64_t EstimatedBytes() const {
    return static_cast<int64_t>(fixed.size() + data.size() + 4 * (offsets.size() - 1) +
                                2 * (def_levels.size() + rep_levels.size()) / 8);
  }
  void Clear();
};

// Width in bytes of one stored value of `leaf` in LeafValues::fixed (0 for BYTE_ARRAY).
int PhysicalWidth(const WriteLeaf& leaf);

// Makes room in `out`'s buffers for rows [begin, end) of a top-level
// primitive leaf (other leaves: nothing) on top of what they hold, at most
// `max_bytes` of values. A buffer that must grow is sized for
// `projected_rows` rows of the row group at the bytes per row it will hold
// (0 or fewer than it will hold: just these rows), so that a row group's
// buffers are allocated once or twice rather than grown by doubling. Only
// capacity is reserved: pages never written are never touched.
void ReserveForRows(const WriteLeaf& leaf, const Column& top_level, int64_t begin, int64_t end,
                    int64_t max_bytes, LeafValues* out, int64_t projected_rows = 0);

// Appends rows [begin, end) of `top_level` (the column of leaf.top_level_field).
Status ShredRows(const WriteLeaf& leaf, const Column& top_level, int64_t begin, int64_t end, LeafValues* out);

}  // namespace floe::parquet
