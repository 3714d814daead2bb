#include "formats/parquet/reader/value_decoder.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "formats/parquet/encoding/byte_stream_split.h"
#include "formats/parquet/encoding/delta_binary_packed.h"
#include "formats/parquet/encoding/delta_byte_array.h"
#include "formats/parquet/encoding/plain.h"
#include "formats/parquet/encoding/rle_bit_packed.h"

namespace floe::parquet {
namespace {

constexpr int64_t kIndexChunk = 1024;

std::string Describe(const PhysicalSpec& spec, Encoding encoding) {
  return std::string(EncodingName(encoding)) + " values of physical type " + TypeName(spec.type);
}

uint8_t* GrowValues(Column* out, int64_t count, int width) {
  const size_t old = out->values.size();
  out->values.resize(old + static_cast<size_t>(count) * static_cast<size_t>(width));
  return out->values.data() + old;
}

// Grows `v` geometrically so that `extra` more elements fit: the encoding
// decoders reserve exactly, which would reallocate once per page.
template <typename T>
void ReserveGeometric(std::vector<T>* v, size_t extra) {
  if (v->capacity() - v->size() < extra) v->reserve(std::max(v->capacity() * 2, v->size() + extra));
}

Status DecodePlainFixedValues(const PhysicalSpec& spec, const uint8_t* data, size_t size, int64_t count,
                              Column* out) {
  if (count == 0) return Status::OK();
  if (static_cast<uint64_t>(count) * static_cast<uint64_t>(spec.width) > size) {
    return Status::Corruption("PLAIN " + std::string(TypeName(spec.type)) + " page holds " +
                              std::to_string(size) + " bytes, too few for " + std::to_string(count) +
                              " values");
  }
  size_t consumed = 0;
  return DecodePlainFixed(data, size, spec.width, count, GrowValues(out, count, spec.width), &consumed);
}

Status DecodePlainBooleanValues(const uint8_t* data, size_t size, int64_t count, Column* out) {
  if (static_cast<uint64_t>(count) > static_cast<uint64_t>(size) * 8) {
    return Status::Corruption("PLAIN BOOLEAN page holds " + std::to_string(size) + " bytes, too few for " +
                              std::to_string(count) + " values");
  }
  return DecodePlainBooleans(data, size, count, GrowValues(out, count, 1));
}

Status DecodePlainByteArrayValues(const uint8_t* data, size_t size, int64_t count, Column* out) {
  if (static_cast<uint64_t>(count) > size / 4) {
    return Status::Corruption("PLAIN BYTE_ARRAY page holds " + std::to_string(size) + " bytes, too few for " +
                              std::to_string(count) + " values");
  }
  ReserveGeometric(&out->data, size);
  ReserveGeometric(&out->offsets, static_cast<size_t>(count));
  size_t consumed = 0;
  return DecodePlainByteArray(data, size, count, &out->offsets, &out->data, &consumed);
}

Status DecodeDeltaIntegers(const PhysicalSpec& spec, const uint8_t* data, size_t size, int64_t count,
                           Column* out) {
  if (spec.type == Type::INT32) {
    DeltaBinaryPackedDecoder<int32_t> decoder;
    FLOE_RETURN_IF_ERROR(decoder.Init(data, size));
    if (decoder.total_values() < count) {
      return Status::Corruption("DELTA_BINARY_PACKED page announces " +
                                std::to_string(decoder.total_values()) + " values but the page needs " +
                                std::to_string(count));
    }
    return decoder.Decode(reinterpret_cast<int32_t*>(GrowValues(out, count, 4)), count);
  }
  DeltaBinaryPackedDecoder<int64_t> decoder;
  FLOE_RETURN_IF_ERROR(decoder.Init(data, size));
  if (decoder.total_values() < count) {
    return Status::Corruption("DELTA_BINARY_PACKED page announces " + std::to_string(decoder.total_values()) +
                              " values but the page needs " + std::to_string(count));
  }
  return decoder.Decode(reinterpret_cast<int64_t*>(GrowValues(out, count, 8)), count);
}

// DELTA_BYTE_ARRAY on FIXED_LEN_BYTE_ARRAY: every value must have the width.
Status DecodeDeltaFixed(const PhysicalSpec& spec, const uint8_t* data, size_t size, int64_t count,
                        Column* out) {
  std::vector<int64_t> offsets{0};
  std::vector<uint8_t> bytes;
  FLOE_RETURN_IF_ERROR(DecodeDeltaByteArray(data, size, count, &offsets, &bytes));
  if (static_cast<int64_t>(offsets.size()) != count + 1) {
    return Status::Corruption("DELTA_BYTE_ARRAY produced a wrong number of values");
  }
  for (int64_t i = 0; i < count; ++i) {
    if (offsets[i + 1] - offsets[i] != spec.width) {
      return Status::Corruption("DELTA_BYTE_ARRAY value " + std::to_string(i) + " has " +
                                std::to_string(offsets[i + 1] - offsets[i]) +
                                " bytes in a FIXED_LEN_BYTE_ARRAY(" + std::to_string(spec.width) +
                                ") column");
    }
  }
  if (!bytes.empty()) std::memcpy(GrowValues(out, count, spec.width), bytes.data(), bytes.size());
  return Status::OK();
}

Status DecodeRleBooleans(const uint8_t* data, size_t size, int64_t count, Column* out) {
  if (size < 4) return Status::Corruption("RLE BOOLEAN page too short for its length prefix");
  uint32_t length;
  std::memcpy(&length, data, 4);
  if (length > size - 4) {
    return Status::Corruption("RLE BOOLEAN data claims " + std::to_string(length) +
                              " bytes but the page has " + std::to_string(size - 4));
  }
  RleBitPackedDecoder decoder(data + 4, length, 1);
  uint8_t* dst = GrowValues(out, count, 1);
  uint32_t buffer[kIndexChunk];
  for (int64_t done = 0; done < count;) {
    const int64_t n = std::min(kIndexChunk, count - done);
    FLOE_RETURN_IF_ERROR(decoder.Decode(buffer, n));
    for (int64_t i = 0; i < n; ++i) dst[done + i] = static_cast<uint8_t>(buffer[i]);
    done += n;
  }
  return Status::OK();
}

template <int kWidth>
void GatherFixed(const uint8_t* dict, const uint32_t* indices, int64_t n, uint8_t* dst) {
  for (int64_t i = 0; i < n; ++i)
    std::memcpy(dst + i * kWidth, dict + static_cast<size_t>(indices[i]) * kWidth, kWidth);
}

void GatherFixedAnyWidth(const uint8_t* dict, const uint32_t* indices, int64_t n, int width, uint8_t* dst) {
  switch (width) {
    case 1: return GatherFixed<1>(dict, indices, n, dst);
    case 2: return GatherFixed<2>(dict, indices, n, dst);
    case 4: return GatherFixed<4>(dict, indices, n, dst);
    case 8: return GatherFixed<8>(dict, indices, n, dst);
    case 12: return GatherFixed<12>(dict, indices, n, dst);
    case 16: return GatherFixed<16>(dict, indices, n, dst);
    default:
      for (int64_t i = 0; i < n; ++i) {
        std::memcpy(dst + i * width, dict + static_cast<size_t>(indices[i]) * width,
                    static_cast<size_t>(width));
      }
  }
}

Status DecodeDictionaryIndices(const PhysicalSpec& spec, const uint8_t* data, size_t size, int64_t count,
                               const Dictionary* dictionary, Column* out) {
  if (count == 0) return Status::OK();
  if (dictionary == nullptr) {
    return Status::Corruption("dictionary-encoded page but the column chunk has no dictionary page");
  }
  if (size < 1) return Status::Corruption("dictionary-encoded page has no index bit width");
  const int bit_width = data[0];
  if (bit_width > 32) {
    return Status::Corruption("dictionary index bit width " + std::to_string(bit_width) + " is above 32");
  }
  RleBitPackedDecoder decoder(data + 1, size - 1, bit_width);
  const uint64_t dict_size = static_cast<uint64_t>(dictionary->size);
  const Column& dict = dictionary->values;
  uint32_t indices[kIndexChunk];
  uint8_t* fixed_dst = spec.width > 0 ? GrowValues(out, count, spec.width) : nullptr;
  if (spec.width == 0) out->offsets.reserve(out->offsets.size() + static_cast<size_t>(count));
  for (int64_t done = 0; done < count;) {
    const int64_t n = std::min(kIndexChunk, count - done);
    FLOE_RETURN_IF_ERROR(decoder.Decode(indices, n));
    uint32_t max_index = 0;
    for (int64_t i = 0; i < n; ++i) max_index = std::max(max_index, indices[i]);
    if (max_index >= dict_size) {
      return Status::Corruption("dictionary index " + std::to_string(max_index) +
                                " is out of range for a dictionary of " + std::to_string(dict_size) +
                                " values");
    }
    if (spec.width > 0) {
      GatherFixedAnyWidth(dict.values.data(), indices, n, spec.width, fixed_dst + done * spec.width);
    } else {
      size_t total = 0;
      for (int64_t i = 0; i < n; ++i)
        total += static_cast<size_t>(dict.offsets[indices[i] + 1] - dict.offsets[indices[i]]);
      size_t pos = out->data.size();
      out->data.resize(pos + total);
      uint8_t* dst = out->data.data();
      for (int64_t i = 0; i < n; ++i) {
        const int64_t begin = dict.offsets[indices[i]];
        const size_t length = static_cast<size_t>(dict.offsets[indices[i] + 1] - begin);
        if (length) std::memcpy(dst + pos, dict.data.data() + begin, length);
        pos += length;
        out->offsets.push_back(static_cast<int64_t>(pos));
      }
    }
    done += n;
  }
  return Status::OK();
}

}  // namespace

PhysicalSpec PhysicalSpecFor(Type type, int32_t type_length) {
  switch (type) {
    case Type::BOOLEAN: return {type, 1};
    case Type::INT32:
    case Type::FLOAT: return {type, 4};
    case Type::INT64:
    case Type::DOUBLE: return {type, 8};
    case Type::INT96: return {type, 12};
    case Type::BYTE_ARRAY: return {type, 0};
    case Type::FIXED_LEN_BYTE_ARRAY: return {type, type_length};
  }
  return {type, 0};
}

Status DecodeDictionaryPage(const PhysicalSpec& spec, const uint8_t* data, size_t size, int64_t count,
                            Dictionary* out) {
  if (count < 0)
    return Status::Corruption("dictionary page has a negative value count " + std::to_string(count));
  if (spec.type == Type::BOOLEAN) return Status::Corruption("dictionary page in a BOOLEAN column");
  out->values = Column();
  out->values.offsets = {0};
  out->size = count;
  return DecodeValues(spec, Encoding::PLAIN, data, size, count, nullptr, &out->values);
}

Status DecodeValues(const PhysicalSpec& spec, Encoding encoding, const uint8_t* data, size_t size,
                    int64_t count, const Dictionary* dictionary, Column* out) {
  switch (encoding) {
    case Encoding::PLAIN:
      if (spec.type == Type::BOOLEAN) return DecodePlainBooleanValues(data, size, count, out);
      if (spec.type == Type::BYTE_ARRAY) return DecodePlainByteArrayValues(data, size, count, out);
      return DecodePlainFixedValues(spec, data, size, count, out);
    case Encoding::PLAIN_DICTIONARY:
    case Encoding::RLE_DICTIONARY:
      if (spec.type == Type::BOOLEAN) break;
      return DecodeDictionaryIndices(spec, data, size, count, dictionary, out);
    case Encoding::RLE:
      if (spec.type != Type::BOOLEAN) break;
      return DecodeRleBooleans(data, size, count, out);
    case Encoding::DELTA_BINARY_PACKED:
      if (spec.type != Type::INT32 && spec.type != Type::INT64) break;
      return DecodeDeltaIntegers(spec, data, size, count, out);
    case Encoding::DELTA_LENGTH_BYTE_ARRAY:
      if (spec.type != Type::BYTE_ARRAY) break;
      return DecodeDeltaLengthByteArray(data, size, count, &out->offsets, &out->data);
    case Encoding::DELTA_BYTE_ARRAY:
      if (spec.type == Type::BYTE_ARRAY)
        return DecodeDeltaByteArray(data, size, count, &out->offsets, &out->data);
      if (spec.type == Type::FIXED_LEN_BYTE_ARRAY) return DecodeDeltaFixed(spec, data, size, count, out);
      break;
    case Encoding::BYTE_STREAM_SPLIT:
      if (spec.type == Type::BOOLEAN || spec.type == Type::BYTE_ARRAY || spec.type == Type::INT96) break;
      if (count == 0) return Status::OK();
      {
        const size_t old = out->values.size();
        uint8_t* dst = GrowValues(out, count, spec.width);
        Status status = DecodeByteStreamSplit(data, size, spec.width, count, dst);
        if (!status.ok()) out->values.resize(old);
        return status;
      }
    default:
      return Status::NotSupported("encoding " + std::string(EncodingName(encoding)) + " not supported");
  }
  return Status::Corruption(Describe(spec, encoding) + ": the encoding does not apply to this type");
}

}  // namespace floe::parquet
