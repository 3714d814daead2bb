#include "formats/parquet/reader/value_decoder.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "formats/parquet/encoding/byte_stream_split.h"
#include "formats/parquet/encoding/delta_binary_packed.h"
#include "formats/parquet/encoding/delta_byte_array.h"
#include "formats/parquet/encoding/plain.h"
#include "formats/parquet/encoding/rle_bit_packed.h"

namespace floe::parquet {
namespace {

constexpr int64_t kBooleanChunk = 1024;

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
  // PLAIN fixed-width values are their own decoded form: append the bytes
  // (no zero-filled growth to overwrite).
  const size_t bytes = static_cast<size_t>(count) * static_cast<size_t>(spec.width);
  ReserveGeometric(&out->values, bytes);
  out->values.insert(out->values.end(), data, data + bytes);
  return Status::OK();
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
  uint32_t buffer[kBooleanChunk];
  for (int64_t done = 0; done < count;) {
    const int64_t n = std::min(kBooleanChunk, count - done);
    FLOE_RETURN_IF_ERROR(decoder.Decode(buffer, n));
    for (int64_t i = 0; i < n; ++i) dst[done + i] = static_cast<uint8_t>(buffer[i]);
    done += n;
  }
  return Status::OK();
}

// A page's projected string bytes are reserved up to this much at once.
constexpr int64_t kMaxPageReserve = int64_t{256} << 20;

// Dictionary indices are decoded in blocks of this many values: large enough
// that a string page is sized once per block, small enough that a page
// announcing billions of values cannot make the scratch buffer huge.
constexpr int64_t kIndexBlock = 64 * 1024;

// Walks slots from *slot, handing each valid slot the next of `n` values
// (value(k, slot) for k = 0..n-1) and skipping null slots; stops after the
// n-th value. kHasNulls false means every slot is valid.
template <bool kHasNulls, typename Fn>
inline void ForEachValueSlot(const uint8_t* valid, int64_t n, int64_t* slot, Fn&& value) {
  int64_t s = *slot;
  for (int64_t k = 0; k < n; ++s) {
    if (!kHasNulls || valid[s]) value(k++, s);
  }
  *slot = s;
}

template <bool kHasNulls, int kWidth>
void GatherFixed(const uint8_t* dict, const uint32_t* indices, int64_t n, const uint8_t* valid, int64_t* slot,
                 int width, uint8_t* dst) {
  const size_t w = kWidth > 0 ? static_cast<size_t>(kWidth) : static_cast<size_t>(width);
  ForEachValueSlot<kHasNulls>(valid, n, slot, [&](int64_t k, int64_t s) {
    std::memcpy(dst + static_cast<size_t>(s) * w, dict + static_cast<size_t>(indices[k]) * w, w);
  });
}

template <bool kHasNulls>
void GatherFixedAnyWidth(const uint8_t* dict, const uint32_t* indices, int64_t n, const uint8_t* valid,
                         int64_t* slot, int width, uint8_t* dst) {
  switch (width) {
    case 1: return GatherFixed<kHasNulls, 1>(dict, indices, n, valid, slot, width, dst);
    case 2: return GatherFixed<kHasNulls, 2>(dict, indices, n, valid, slot, width, dst);
    case 4: return GatherFixed<kHasNulls, 4>(dict, indices, n, valid, slot, width, dst);
    case 8: return GatherFixed<kHasNulls, 8>(dict, indices, n, valid, slot, width, dst);
    case 12: return GatherFixed<kHasNulls, 12>(dict, indices, n, valid, slot, width, dst);
    case 16: return GatherFixed<kHasNulls, 16>(dict, indices, n, valid, slot, width, dst);
    default: return GatherFixed<kHasNulls, 0>(dict, indices, n, valid, slot, width, dst);
  }
}

// Strings: the block's total length is summed first, so `data` grows once per
// block. Long values are appended one by one, which writes each byte once;
// short ones are copied into the block resized (zero-filled) in one go, which
// costs less per value.
// `values_left` counts this block's values and the page's later ones: when
// `data` must grow, it grows for all of them at this block's average length
// (plus a margin), so a large page is not copied again at every doubling.
template <bool kHasNulls>
void GatherStrings(const Column& dict, const uint32_t* indices, int64_t n, int64_t values_left,
                   const uint8_t* valid, int64_t* slot, int64_t* offsets, Column* out) {
  constexpr size_t kLongValue = 32;
  const int64_t* dict_offsets = dict.offsets.data();
  size_t total = 0;
  for (int64_t k = 0; k < n; ++k) {
    total += static_cast<size_t>(dict_offsets[indices[k] + 1] - dict_offsets[indices[k]]);
  }
  if (out->data.capacity() - out->data.size() < total) {
    const double projected =
        static_cast<double>(total) * static_cast<double>(values_left) / static_cast<double>(n) * 1.05;
    const size_t wanted = static_cast<size_t>(std::min(projected, static_cast<double>(kMaxPageReserve)));
    out->data.reserve(out->data.size() + std::max(total, wanted));
  }
  const uint8_t* src = dict.data.data();
  int64_t s = *slot;
  if (total >= static_cast<size_t>(n) * kLongValue) {
    std::vector<uint8_t>& data = out->data;
    for (int64_t k = 0; k < n; ++s) {
      if (!kHasNulls || valid[s]) {
        const int64_t begin = dict_offsets[indices[k]];
        data.insert(data.end(), src + begin, src + dict_offsets[indices[k] + 1]);
        ++k;
      }
      offsets[s] = static_cast<int64_t>(data.size());
    }
    *slot = s;
    return;
  }
  size_t pos = out->data.size();
  out->data.resize(pos + total);
  uint8_t* dst = out->data.data();
  for (int64_t k = 0; k < n; ++s) {
    if (!kHasNulls || valid[s]) {
      const int64_t begin = dict_offsets[indices[k]];
      const size_t length = static_cast<size_t>(dict_offsets[indices[k] + 1] - begin);
      std::memcpy(dst + pos, src + begin, length);
      pos += length;
      ++k;
    }
    offsets[s] = static_cast<int64_t>(pos);
  }
  *slot = s;
}

// Appends `slots` null slots (zeros / empty strings).
void AppendNullSlots(const PhysicalSpec& spec, int64_t slots, Column* out) {
  if (slots == 0) return;
  if (spec.width > 0) {
    GrowValues(out, slots, spec.width);
  } else {
    const int64_t end = out->offsets.back();
    out->offsets.insert(out->offsets.end(), static_cast<size_t>(slots), end);
  }
}

// The decoder of a dictionary-encoded page's indices (after its bit width).
Result<RleBitPackedDecoder> OpenDictionaryIndices(const uint8_t* data, size_t size,
                                                  const Dictionary* dictionary) {
  if (dictionary == nullptr) {
    return Status::Corruption("dictionary-encoded page but the column chunk has no dictionary page");
  }
  if (size < 1) return Status::Corruption("dictionary-encoded page has no index bit width");
  const int bit_width = data[0];
  if (bit_width > 32) {
    return Status::Corruption("dictionary index bit width " + std::to_string(bit_width) + " is above 32");
  }
  return RleBitPackedDecoder(data + 1, size - 1, bit_width);
}

template <bool kHasNulls>
Status DecodeDictionaryIndices(const PhysicalSpec& spec, const uint8_t* data, size_t size, int64_t present,
                               const uint8_t* valid, int64_t slots, const Dictionary* dictionary,
                               ScratchVector<uint32_t>* indices, Column* out) {
  if (present == 0) {
    AppendNullSlots(spec, slots, out);
    return Status::OK();
  }
  FLOE_ASSIGN_OR_RETURN(RleBitPackedDecoder decoder, OpenDictionaryIndices(data, size, dictionary));
  const uint64_t dict_size = static_cast<uint64_t>(dictionary->size);
  const Column& dict = dictionary->values;
  indices->resize(static_cast<size_t>(std::min(kIndexBlock, present)));
  uint32_t* block = indices->data();
  uint8_t* fixed_dst = spec.width > 0 ? GrowValues(out, slots, spec.width) : nullptr;
  int64_t* offsets = nullptr;
  if (spec.width == 0) {
    const size_t old = out->offsets.size();
    out->offsets.resize(old + static_cast<size_t>(slots));
    offsets = out->offsets.data() + old;
  }
  int64_t slot = 0;
  for (int64_t done = 0; done < present;) {
    const int64_t n = std::min(kIndexBlock, present - done);
    FLOE_RETURN_IF_ERROR(decoder.Decode(block, n));
    uint32_t max_index = 0;
    for (int64_t i = 0; i < n; ++i) max_index = std::max(max_index, block[i]);
    if (max_index >= dict_size) {
      return Status::Corruption("dictionary index " + std::to_string(max_index) +
                                " is out of range for a dictionary of " + std::to_string(dict_size) +
                                " values");
    }
    if (spec.width > 0) {
      GatherFixedAnyWidth<kHasNulls>(dict.values.data(), block, n, valid, &slot, spec.width, fixed_dst);
    } else {
      GatherStrings<kHasNulls>(dict, block, n, present - done, valid, &slot, offsets, out);
    }
    done += n;
  }
  // Null slots after the last value: fixed-width ones are already zero.
  if (offsets != nullptr) {
    const int64_t end = static_cast<int64_t>(out->data.size());
    for (int64_t s = slot; s < slots; ++s) offsets[s] = end;
  }
  return Status::OK();
}

template <int kWidth>
void SpreadFixed(const uint8_t* dense, const uint8_t* valid, int64_t slots, int width, uint8_t* out) {
  const size_t w = kWidth > 0 ? static_cast<size_t>(kWidth) : static_cast<size_t>(width);
  for (int64_t s = 0; s < slots; ++s) {
    if (valid[s]) {
      std::memcpy(out + static_cast<size_t>(s) * w, dense, w);
      dense += w;
    }
  }
}

// Copies `present` dense fixed-width values into the slots of a page whose
// null slots were zero-filled by GrowValues.
void SpreadFixedAnyWidth(const uint8_t* dense, const uint8_t* valid, int64_t slots, int width, uint8_t* out) {
  switch (width) {
    case 1: return SpreadFixed<1>(dense, valid, slots, width, out);
    case 2: return SpreadFixed<2>(dense, valid, slots, width, out);
    case 4: return SpreadFixed<4>(dense, valid, slots, width, out);
    case 8: return SpreadFixed<8>(dense, valid, slots, width, out);
    case 12: return SpreadFixed<12>(dense, valid, slots, width, out);
    case 16: return SpreadFixed<16>(dense, valid, slots, width, out);
    default: return SpreadFixed<0>(dense, valid, slots, width, out);
  }
}

Status DecodeDense(const PhysicalSpec& spec, Encoding encoding, const uint8_t* data, size_t size,
                   int64_t count, const Dictionary* dictionary, ScratchVector<uint32_t>* indices,
                   Column* out) {
  switch (encoding) {
    case Encoding::PLAIN:
      if (spec.type == Type::BOOLEAN) return DecodePlainBooleanValues(data, size, count, out);
      if (spec.type == Type::BYTE_ARRAY) return DecodePlainByteArrayValues(data, size, count, out);
      return DecodePlainFixedValues(spec, data, size, count, out);
    case Encoding::PLAIN_DICTIONARY:
    case Encoding::RLE_DICTIONARY:
      if (spec.type == Type::BOOLEAN) break;
      return DecodeDictionaryIndices<false>(spec, data, size, count, nullptr, count, dictionary, indices,
                                            out);
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

// The `present` values of a page decoded densely into scratch->dense (other
// encodings than those placed straight into their slots).
Status DecodeDenseIntoScratch(const PhysicalSpec& spec, Encoding encoding, const uint8_t* data, size_t size,
                              int64_t present, const Dictionary* dictionary, ChunkScratch* scratch) {
  Column& dense = scratch->dense;
  dense.values.clear();
  dense.data.clear();
  dense.offsets.assign(1, 0);
  FLOE_RETURN_IF_ERROR(
      DecodeDense(spec, encoding, data, size, present, dictionary, &scratch->indices, &dense));
  const bool counts_match =
      spec.width > 0 ? dense.values.size() == static_cast<size_t>(present) * static_cast<size_t>(spec.width)
                     : dense.offsets.size() == static_cast<size_t>(present) + 1;
  if (!counts_match)
    return Status::Corruption(Describe(spec, encoding) + ": decoded a wrong number of values");
  return Status::OK();
}

// A PLAIN page of fixed-width values holds at least `present` of them.
Status CheckPlainFixedSize(const PhysicalSpec& spec, size_t size, int64_t present) {
  if (static_cast<uint64_t>(present) * static_cast<uint64_t>(spec.width) > size) {
    return Status::Corruption("PLAIN " + std::string(TypeName(spec.type)) + " page holds " +
                              std::to_string(size) + " bytes, too few for " + std::to_string(present) +
                              " values");
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
                    int64_t count, const Dictionary* dictionary, Column* out, ChunkScratch* scratch) {
  ScratchVector<uint32_t> local_indices;
  return DecodeDense(spec, encoding, data, size, count, dictionary,
                     scratch != nullptr ? &scratch->indices : &local_indices, out);
}

Status DecodeValuesIntoSlots(const PhysicalSpec& spec, Encoding encoding, const uint8_t* data, size_t size,
                             int64_t present, const uint8_t* valid, int64_t slots,
                             const Dictionary* dictionary, ChunkScratch* scratch, Column* out) {
  if (valid == nullptr) return DecodeValues(spec, encoding, data, size, present, dictionary, out, scratch);
  const bool dictionary_encoded =
      encoding == Encoding::PLAIN_DICTIONARY || encoding == Encoding::RLE_DICTIONARY;
  if (dictionary_encoded && spec.type != Type::BOOLEAN) {
    return DecodeDictionaryIndices<true>(spec, data, size, present, valid, slots, dictionary,
                                         &scratch->indices, out);
  }
  if (encoding == Encoding::PLAIN && spec.width > 0 && spec.type != Type::BOOLEAN) {
    FLOE_RETURN_IF_ERROR(CheckPlainFixedSize(spec, size, present));
    SpreadFixedAnyWidth(data, valid, slots, spec.width, GrowValues(out, slots, spec.width));
    return Status::OK();
  }
  // Other encodings: decode densely, then give each value its slot.
  FLOE_RETURN_IF_ERROR(DecodeDenseIntoScratch(spec, encoding, data, size, present, dictionary, scratch));
  const Column& dense = scratch->dense;
  if (spec.width > 0) {
    SpreadFixedAnyWidth(dense.values.data(), valid, slots, spec.width, GrowValues(out, slots, spec.width));
    return Status::OK();
  }
  const int64_t base = static_cast<int64_t>(out->data.size());
  out->data.insert(out->data.end(), dense.data.begin(), dense.data.end());
  const size_t old = out->offsets.size();
  out->offsets.resize(old + static_cast<size_t>(slots));
  int64_t* dst = out->offsets.data() + old;
  const int64_t* in = dense.offsets.data();
  int64_t next = 0;
  for (int64_t s = 0; s < slots; ++s) {
    next += valid[s];
    dst[s] = base + in[next];
  }
  return Status::OK();
}

namespace {

// The value number of each wanted slot (-1: a null slot), counting the
// page's present values before it.
std::vector<int64_t> ValueNumbersOf(std::span<const int64_t> wanted, const uint8_t* valid) {
  std::vector<int64_t> numbers(wanted.size());
  int64_t slot = 0, value = 0;
  for (size_t i = 0; i < wanted.size(); ++i) {
    if (valid == nullptr) {
      numbers[i] = wanted[i];
      continue;
    }
    for (; slot < wanted[i]; ++slot) value += valid[slot];
    numbers[i] = valid[slot] ? value : -1;
  }
  return numbers;
}

// Appends the value bytes [begin, end) of a BYTE_ARRAY (or a fixed-width
// value of end - begin bytes) as the next slot of `out`.
void AppendSlotBytes(const PhysicalSpec& spec, const uint8_t* begin, const uint8_t* end, Column* out) {
  if (spec.width > 0) {
    out->values.insert(out->values.end(), begin, end);
    return;
  }
  out->data.insert(out->data.end(), begin, end);
  out->offsets.push_back(static_cast<int64_t>(out->data.size()));
}

void AppendNullSlot(const PhysicalSpec& spec, Column* out) {
  if (spec.width > 0) {
    out->values.resize(out->values.size() + static_cast<size_t>(spec.width));
  } else {
    out->offsets.push_back(out->offsets.back());
  }
}

Status SelectDictionaryValues(const PhysicalSpec& spec, const uint8_t* data, size_t size,
                              const std::vector<int64_t>& numbers, int64_t needed,
                              const Dictionary* dictionary, ScratchVector<uint32_t>* indices, Column* out) {
  if (needed > 0) {
    FLOE_ASSIGN_OR_RETURN(RleBitPackedDecoder decoder, OpenDictionaryIndices(data, size, dictionary));
    indices->resize(static_cast<size_t>(needed));
    FLOE_RETURN_IF_ERROR(decoder.Decode(indices->data(), needed));
  }
  for (int64_t number : numbers) {
    if (number < 0) {
      AppendNullSlot(spec, out);
      continue;
    }
    const Column& dict = dictionary->values;  // needed > 0: checked above
    const uint32_t index = (*indices)[static_cast<size_t>(number)];
    if (index >= static_cast<uint64_t>(dictionary->size)) {
      return Status::Corruption("dictionary index " + std::to_string(index) +
                                " is out of range for a dictionary of " + std::to_string(dictionary->size) +
                                " values");
    }
    if (spec.width > 0) {
      const uint8_t* value =
          dict.values.data() + static_cast<size_t>(index) * static_cast<size_t>(spec.width);
      AppendSlotBytes(spec, value, value + spec.width, out);
    } else {
      const uint8_t* bytes = dict.data.data();
      AppendSlotBytes(spec, bytes + dict.offsets[index], bytes + dict.offsets[index + 1], out);
    }
  }
  return Status::OK();
}

Status SelectPlainByteArrays(const uint8_t* data, size_t size, const std::vector<int64_t>& numbers,
                             int64_t needed, Column* out) {
  const PhysicalSpec spec{Type::BYTE_ARRAY, 0};
  size_t pos = 0;
  int64_t value = 0;
  for (int64_t number : numbers) {
    if (number < 0) {
      AppendNullSlot(spec, out);
      continue;
    }
    for (;; ++value) {
      if (size - pos < 4) {
        return Status::Corruption("PLAIN byte array value " + std::to_string(value) + " of " +
                                  std::to_string(needed) + " read: length prefix truncated at offset " +
                                  std::to_string(pos));
      }
      uint32_t length;
      std::memcpy(&length, data + pos, 4);
      pos += 4;
      if (length > size - pos) {
        return Status::Corruption("PLAIN byte array value " + std::to_string(value) + " claims " +
                                  std::to_string(length) + " bytes but " + std::to_string(size - pos) +
                                  " remain");
      }
      const size_t begin = pos;
      pos += length;
      if (value == number) {
        AppendSlotBytes(spec, data + begin, data + pos, out);
        ++value;
        break;
      }
    }
  }
  return Status::OK();
}

}  // namespace

Status DecodeSelectedSlots(const PhysicalSpec& spec, Encoding encoding, const uint8_t* data, size_t size,
                           int64_t present, const uint8_t* valid, int64_t slots,
                           std::span<const int64_t> wanted, const Dictionary* dictionary,
                           ChunkScratch* scratch, Column* out) {
  for (size_t i = 0; i < wanted.size(); ++i) {
    if (wanted[i] < 0 || wanted[i] >= slots || (i > 0 && wanted[i] <= wanted[i - 1])) {
      return Status::Corruption("row " + std::to_string(wanted[i]) +
                                " of a page is not an ascending row of its " + std::to_string(slots) +
                                " values (the offset index and the page disagree)");
    }
  }
  const std::vector<int64_t> numbers = ValueNumbersOf(wanted, valid);
  int64_t needed = 0;  // values up to the last wanted one
  for (int64_t number : numbers) needed = std::max(needed, number + 1);
  if (needed > present) {
    return Status::Corruption("page slots name value " + std::to_string(needed - 1) + " of " +
                              std::to_string(present));
  }
  const bool dictionary_encoded =
      encoding == Encoding::PLAIN_DICTIONARY || encoding == Encoding::RLE_DICTIONARY;
  if (dictionary_encoded && spec.type != Type::BOOLEAN) {
    return SelectDictionaryValues(spec, data, size, numbers, needed, dictionary, &scratch->indices, out);
  }
  if (encoding == Encoding::PLAIN && spec.type == Type::BYTE_ARRAY) {
    return SelectPlainByteArrays(data, size, numbers, needed, out);
  }
  if (encoding == Encoding::PLAIN && spec.width > 0 && spec.type != Type::BOOLEAN) {
    const auto width = static_cast<size_t>(spec.width);
    FLOE_RETURN_IF_ERROR(CheckPlainFixedSize(spec, size, present));
    for (int64_t number : numbers) {
      if (number < 0) {
        AppendNullSlot(spec, out);
      } else {
        const uint8_t* value = data + static_cast<size_t>(number) * width;
        AppendSlotBytes(spec, value, value + width, out);
      }
    }
    return Status::OK();
  }
  // Other encodings: the page's values decoded whole, the wanted ones copied.
  FLOE_RETURN_IF_ERROR(DecodeDenseIntoScratch(spec, encoding, data, size, present, dictionary, scratch));
  const Column& dense = scratch->dense;
  for (int64_t number : numbers) {
    if (number < 0) {
      AppendNullSlot(spec, out);
    } else if (spec.width > 0) {
      const uint8_t* value =
          dense.values.data() + static_cast<size_t>(number) * static_cast<size_t>(spec.width);
      AppendSlotBytes(spec, value, value + spec.width, out);
    } else {
      const uint8_t* bytes = dense.data.data();
      AppendSlotBytes(spec, bytes + dense.offsets[static_cast<size_t>(number)],
                      bytes + dense.offsets[static_cast<size_t>(number) + 1], out);
    }
  }
  return Status::OK();
}

}  // namespace floe::parquet
