#include "formats/parquet/writer/page_encoding.h"

#include <algorithm>
#include <string_view>

#include "formats/parquet/encoding/delta_binary_packed.h"
#include "formats/parquet/encoding/delta_byte_array.h"
#include "formats/parquet/encoding/plain.h"
#include "formats/parquet/encoding/rle_bit_packed.h"

namespace floe::parquet {

void EncodeLevels(const ScratchVector<uint16_t>& levels, int64_t begin, int64_t end, int16_t max_level,
                  std::vector<uint8_t>* out) {
  RleBitPackedEncoder encoder(BitWidthFor(static_cast<uint64_t>(max_level)), out);
  const uint16_t* p = levels.data();
  int64_t i = begin;
  while (i < end) {  // whole runs: levels usually come in long ones
    const uint16_t v = p[i];
    int64_t j = i + 1;
    while (j < end && p[j] == v) ++j;
    encoder.PutRepeated(v, j - i);
    i = j;
  }
  encoder.Finish();
}

Encoding FallbackEncodingFor(const WriteLeaf& leaf, bool delta_encodings) {
  if (!delta_encodings) return Encoding::PLAIN;
  switch (leaf.physical_type) {
    case Type::INT32:
    case Type::INT64: return Encoding::DELTA_BINARY_PACKED;
    case Type::BYTE_ARRAY: return Encoding::DELTA_BYTE_ARRAY;
    default: return Encoding::PLAIN;
  }
}

void EncodeValues(const WriteLeaf& leaf, const LeafValues& values, int64_t begin, int64_t end,
                  Encoding encoding, std::vector<uint8_t>* out) {
  const int64_t count = end - begin;
  const int width = PhysicalWidth(leaf);
  const uint8_t* fixed = values.fixed.data() + static_cast<size_t>(begin) * static_cast<size_t>(width);
  if (encoding == Encoding::DELTA_BINARY_PACKED) {
    std::vector<uint8_t> encoded;
    if (leaf.physical_type == Type::INT32) {
      DeltaBinaryPackedEncoder<int32_t> encoder;
      encoder.Put(reinterpret_cast<const int32_t*>(fixed), count);
      encoded = encoder.Finish();
    } else {
      DeltaBinaryPackedEncoder<int64_t> encoder;
      encoder.Put(reinterpret_cast<const int64_t*>(fixed), count);
      encoded = encoder.Finish();
    }
    out->insert(out->end(), encoded.begin(), encoded.end());
    return;
  }
  if (encoding == Encoding::DELTA_BYTE_ARRAY) {
    std::vector<std::string_view> views;
    views.reserve(static_cast<size_t>(count));
    for (int64_t i = begin; i < end; ++i) views.push_back(values.ByteArrayAt(i));
    std::vector<uint8_t> encoded = EncodeDeltaByteArray(views);
    out->insert(out->end(), encoded.begin(), encoded.end());
    return;
  }
  switch (leaf.physical_type) {
    case Type::BOOLEAN: EncodePlainBooleans(fixed, count, out); return;
    case Type::BYTE_ARRAY:
      EncodePlainByteArrays(values.offsets.data() + begin, values.data.data(), count, out);
      return;
    default: out->insert(out->end(), fixed, fixed + static_cast<size_t>(count) * static_cast<size_t>(width));
  }
}

void EncodeDictionaryIndices(const std::vector<uint32_t>& indices, int64_t dictionary_size,
                             std::vector<uint8_t>* out) {
  // At least one bit: some readers reject a bit width of 0.
  const int bit_width =
      std::max(1, BitWidthFor(static_cast<uint64_t>(std::max<int64_t>(dictionary_size - 1, 0))));
  out->push_back(static_cast<uint8_t>(bit_width));
  RleBitPackedEncoder encoder(bit_width, out);
  encoder.PutValues(indices.data(), static_cast<int64_t>(indices.size()));
  encoder.Finish();
}

}  // namespace floe::parquet
