// Decoding of the values section of data pages and of dictionary pages into
// physical values held in Column buffers.
//
// Contract (physical layout, before conversion to the leaf's floe type):
// BOOLEAN appends one byte (0/1) per value to `values`; INT32, INT64, INT96,
// FLOAT, DOUBLE and FIXED_LEN_BYTE_ARRAY append their `width` little-endian
// (INT96/FLBA: as stored) bytes to `values`; BYTE_ARRAY appends to
// `offsets`/`data` (offsets must start with its leading 0). Inputs are
// untrusted: short input, bad lengths and dictionary indices out of range are
// Corruption; an encoding that does not apply to the physical type is
// NotSupported / Corruption naming both. DecodeValuesIntoSlots places the
// values of a page with nulls straight into their slots, so a flat column
// needs no separate pass to spread dense values around its nulls.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "columnar/column.h"
#include "common/status.h"
#include "formats/parquet/reader/scratch.h"
#include "formats/parquet/thrift/parquet_types.h"

namespace floe::parquet {

struct PhysicalSpec {
  Type type = Type::INT32;
  int width = 4;  // bytes per value in `values`; 0 for BYTE_ARRAY
};

PhysicalSpec PhysicalSpecFor(Type type, int32_t type_length);

// The decoded dictionary page of a column chunk.
struct Dictionary {
  Column values;  // physical layout as above
  int64_t size = 0;
};

Status DecodeDictionaryPage(const PhysicalSpec& spec, const uint8_t* data, size_t size, int64_t count,
                            Dictionary* out);

// Appends `count` values encoded with `encoding` in data[0, size) to `out`.
// `dictionary` is null when the chunk has no dictionary page; `scratch`
// (optional) lends reusable buffers.
Status DecodeValues(const PhysicalSpec& spec, Encoding encoding, const uint8_t* data, size_t size,
                    int64_t count, const Dictionary* dictionary, Column* out,
                    ChunkScratch* scratch = nullptr);

// Appends `slots` entries to `out`: slot i takes the next of the `present`
// values encoded in data[0, size) when valid[i] is 1, else it is a null slot
// (zero bytes; an empty BYTE_ARRAY). `valid` null means every slot has a
// value (then slots == present). The caller guarantees that `valid` holds
// exactly `present` ones.
Status DecodeValuesIntoSlots(const PhysicalSpec& spec, Encoding encoding, const uint8_t* data, size_t size,
                             int64_t present, const uint8_t* valid, int64_t slots,
                             const Dictionary* dictionary, ChunkScratch* scratch, Column* out);

// Appends one slot per entry of `wanted` (ascending slot numbers of the page,
// each below `slots`) to `out`, as DecodeValuesIntoSlots would have placed
// them; the page's other values are not copied. Dictionary indices and PLAIN
// values are addressed in place (PLAIN BYTE_ARRAY lengths walked up to the
// last wanted value); other encodings are decoded whole into scratch first.
// Only the values up to the last wanted one are checked (dictionary indices:
// the wanted ones). `valid` and `present` as in DecodeValuesIntoSlots.
Status DecodeSelectedSlots(const PhysicalSpec& spec, Encoding encoding, const uint8_t* data, size_t size,
                           int64_t present, const uint8_t* valid, int64_t slots,
                           std::span<const int64_t> wanted, const Dictionary* dictionary,
                           ChunkScratch* scratch, Column* out);

}  // namespace floe::parquet
