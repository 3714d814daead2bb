// Encoders for the parts of a data page: RLE definition/repetition levels
// and the value section in PLAIN, delta or RLE_DICTIONARY index form, all
// reading the buffered LeafValues of one leaf.
//
// Contract: value ranges are indices of stored (non-null) values; level
// ranges are indices into the level vectors. Output is appended.
#pragma once

#include <cstdint>
#include <vector>

#include "formats/parquet/thrift/parquet_types.h"
#include "formats/parquet/writer/leaf_shredder.h"
#include "formats/parquet/writer/schema_builder.h"

namespace floe::parquet {

// RLE hybrid encoding of levels[begin, end) for levels up to max_level.
void EncodeLevels(const ScratchVector<uint16_t>& levels, int64_t begin, int64_t end, int16_t max_level,
                  std::vector<uint8_t>* out);

// The encoding used for a non-dictionary page of this leaf.
Encoding FallbackEncodingFor(const WriteLeaf& leaf, bool delta_encodings);

// Values [begin, end) in `encoding` (PLAIN, DELTA_BINARY_PACKED or DELTA_BYTE_ARRAY).
void EncodeValues(const WriteLeaf& leaf, const LeafValues& values, int64_t begin, int64_t end,
                  Encoding encoding, std::vector<uint8_t>* out);

// RLE_DICTIONARY value section: bit width byte + RLE hybrid indices.
void EncodeDictionaryIndices(const std::vector<uint32_t>& indices, int64_t dictionary_size,
                             std::vector<uint8_t>* out);

}  // namespace floe::parquet
