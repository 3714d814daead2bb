#include "formats/parquet/encoding/delta_byte_array.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "formats/parquet/encoding/delta_binary_packed.h"

namespace floe::parquet {

namespace {

// Decoded output of one call is capped so a tiny page cannot expand into an
// allocation that fails (prefixes may repeat earlier bytes many times).
constexpr int64_t kMaxDecodedBytes = int64_t{1} << 31;

// Decodes `count` DELTA_BINARY_PACKED int32 values starting at data[0] into
// `values` and sets *end to where the packed stream ends.
Status DecodeLengthStream(const uint8_t* data, size_t size, int64_t count, const char* what,
                          std::vector<int32_t>* values, size_t* end) {
  DeltaBinaryPackedDecoder<int32_t> decoder;
  Status init = decoder.Init(data, size);
  if (!init.ok()) return init.WithContext(what);
  if (decoder.total_values() < count) {
    return Status::Corruption(std::string(what) + ": stream holds " + std::to_string(decoder.total_values()) +
                              " values, " + std::to_string(count) + " expected");
  }
  values->resize(static_cast<size_t>(count));
  Status decoded = decoder.Decode(values->data(), count);
  if (!decoded.ok()) return decoded.WithContext(what);
  Result<size_t> consumed = decoder.BytesConsumedAfterAllValues();
  if (!consumed.ok()) return consumed.status().WithContext(what);
  *end = *consumed;
  return Status::OK();
}

// Checks lengths are non-negative and their sum fits in `available` bytes.
Status CheckLengths(const std::vector<int32_t>& lengths, size_t available, const char* what, int64_t* total) {
  int64_t sum = 0;
  for (size_t i = 0; i < lengths.size(); ++i) {
    if (lengths[i] < 0) {
      return Status::Corruption(std::string(what) + " of value " + std::to_string(i) + " is negative (" +
                                std::to_string(lengths[i]) + ")");
    }
    sum += lengths[i];
  }
  if (static_cast<uint64_t>(sum) > available) {
    return Status::Corruption(std::string(what) + "s add up to " + std::to_string(sum) + " bytes, only " +
                              std::to_string(available) + " remain");
  }
  *total = sum;
  return Status::OK();
}

void AppendLengthStream(const std::vector<int32_t>& lengths, std::vector<uint8_t>* out) {
  DeltaBinaryPackedEncoder<int32_t> encoder;
  encoder.Put(lengths.data(), static_cast<int64_t>(lengths.size()));
  std::vector<uint8_t> encoded = encoder.Finish();
  out->insert(out->end(), encoded.begin(), encoded.end());
}

}  // namespace

Status DecodeDeltaLengthByteArray(const uint8_t* data, size_t size, int64_t count,
                                  std::vector<int64_t>* offsets, std::vector<uint8_t>* out) {
  if (count < 0) return Status::InvalidArgument("DELTA_LENGTH_BYTE_ARRAY decode of a negative count");
  if (count == 0) return Status::OK();  // some writers leave all-null pages without a header
  std::vector<int32_t> lengths;
  size_t data_start = 0;
  FLOE_RETURN_IF_ERROR(
      DecodeLengthStream(data, size, count, "DELTA_LENGTH_BYTE_ARRAY lengths", &lengths, &data_start));
  int64_t total = 0;
  FLOE_RETURN_IF_ERROR(CheckLengths(lengths, size - data_start, "DELTA_LENGTH_BYTE_ARRAY length", &total));
  const int64_t base = static_cast<int64_t>(out->size());
  out->insert(out->end(), data + data_start, data + data_start + total);
  const size_t first = offsets->size();
  offsets->resize(first + lengths.size());
  int64_t end = base;
  for (size_t i = 0; i < lengths.size(); ++i) {
    end += lengths[i];
    (*offsets)[first + i] = end;
  }
  return Status::OK();
}

Status DecodeDeltaByteArray(const uint8_t* data, size_t size, int64_t count, std::vector<int64_t>* offsets,
                            std::vector<uint8_t>* out) {
  if (count < 0) return Status::InvalidArgument("DELTA_BYTE_ARRAY decode of a negative count");
  if (count == 0) return Status::OK();
  std::vector<int32_t> prefixes;
  size_t suffixes_start = 0;
  FLOE_RETURN_IF_ERROR(
      DecodeLengthStream(data, size, count, "DELTA_BYTE_ARRAY prefix lengths", &prefixes, &suffixes_start));
  std::vector<int32_t> suffixes;
  size_t suffix_lengths_end = 0;
  FLOE_RETURN_IF_ERROR(DecodeLengthStream(data + suffixes_start, size - suffixes_start, count,
                                          "DELTA_BYTE_ARRAY suffix lengths", &suffixes, &suffix_lengths_end));
  const size_t suffix_data_start = suffixes_start + suffix_lengths_end;
  int64_t suffix_total = 0;
  FLOE_RETURN_IF_ERROR(
      CheckLengths(suffixes, size - suffix_data_start, "DELTA_BYTE_ARRAY suffix length", &suffix_total));

  int64_t total = 0;
  int64_t previous_length = 0;
  for (size_t i = 0; i < prefixes.size(); ++i) {
    if (prefixes[i] < 0 || prefixes[i] > previous_length) {
      return Status::Corruption("DELTA_BYTE_ARRAY prefix length " + std::to_string(prefixes[i]) +
                                " of value " + std::to_string(i) + " is outside 0.." +
                                std::to_string(previous_length) + " (the previous value's length)");
    }
    previous_length = static_cast<int64_t>(prefixes[i]) + suffixes[i];
    total += previous_length;
    if (total > kMaxDecodedBytes) {
      return Status::Corruption("DELTA_BYTE_ARRAY values would expand to more than 2 GiB");
    }
  }

  const size_t base = out->size();
  out->resize(base + static_cast<size_t>(total));
  uint8_t* dst = out->data() + base;
  const uint8_t* previous = dst;
  const uint8_t* suffix = data + suffix_data_start;
  const size_t first = offsets->size();
  offsets->resize(first + prefixes.size());
  int64_t end = static_cast<int64_t>(base);
  for (size_t i = 0; i < prefixes.size(); ++i) {
    const size_t prefix_length = static_cast<size_t>(prefixes[i]);
    const size_t suffix_length = static_cast<size_t>(suffixes[i]);
    if (prefix_length > 0) std::memcpy(dst, previous, prefix_length);
    if (suffix_length > 0) std::memcpy(dst + prefix_length, suffix, suffix_length);
    suffix += suffix_length;
    previous = dst;
    dst += prefix_length + suffix_length;
    end += static_cast<int64_t>(prefix_length + suffix_length);
    (*offsets)[first + i] = end;
  }
  return Status::OK();
}

std::vector<uint8_t> EncodeDeltaLengthByteArray(const std::vector<std::string_view>& values) {
  std::vector<int32_t> lengths;
  lengths.reserve(values.size());
  size_t total = 0;
  for (std::string_view v : values) {
    lengths.push_back(static_cast<int32_t>(v.size()));
    total += v.size();
  }
  std::vector<uint8_t> out;
  AppendLengthStream(lengths, &out);
  out.reserve(out.size() + total);
  for (std::string_view v : values) out.insert(out.end(), v.begin(), v.end());
  return out;
}

std::vector<uint8_t> EncodeDeltaByteArray(const std::vector<std::string_view>& values) {
  std::vector<int32_t> prefixes;
  std::vector<int32_t> suffixes;
  prefixes.reserve(values.size());
  suffixes.reserve(values.size());
  std::string_view previous;
  for (std::string_view v : values) {
    const size_t limit = std::min(previous.size(), v.size());
    const size_t prefix = static_cast<size_t>(
        std::mismatch(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(limit), previous.begin()).first -
        v.begin());
    prefixes.push_back(static_cast<int32_t>(prefix));
    suffixes.push_back(static_cast<int32_t>(v.size() - prefix));
    previous = v;
  }
  std::vector<uint8_t> out;
  AppendLengthStream(prefixes, &out);
  AppendLengthStream(suffixes, &out);
  for (size_t i = 0; i < values.size(); ++i) {
    std::string_view suffix = values[i].substr(static_cast<size_t>(prefixes[i]));
    out.insert(out.end(), suffix.begin(), suffix.end());
  }
  return out;
}

}  // namespace floe::parquet
