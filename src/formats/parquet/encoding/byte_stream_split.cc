#include "formats/parquet/encoding/byte_stream_split.h"

#include <algorithm>
#include <string>

namespace floe::parquet {

namespace {

// Width-specialised loops let the compiler keep the K stream pointers in
// registers and unroll the inner byte loop.
template <int K>
void GatherFixed(const uint8_t* data, int64_t count, uint8_t* out) {
  const uint8_t* streams[K];
  for (int k = 0; k < K; ++k) streams[k] = data + k * count;
  for (int64_t i = 0; i < count; ++i) {
    for (int k = 0; k < K; ++k) out[i * K + k] = streams[k][i];
  }
}

void GatherAny(const uint8_t* data, int width, int64_t count, uint8_t* out) {
  for (int k = 0; k < width; ++k) {
    const uint8_t* stream = data + static_cast<int64_t>(k) * count;
    for (int64_t i = 0; i < count; ++i) out[i * width + k] = stream[i];
  }
}

// Works in L1-sized blocks: each stream gets a contiguous run of writes
// while the block's values stay cached.
template <int K>
void ScatterFixed(const uint8_t* values, int64_t count, uint8_t* out) {
  constexpr int64_t kBlock = 256;
  for (int64_t begin = 0; begin < count; begin += kBlock) {
    const int64_t n = std::min(kBlock, count - begin);
    const uint8_t* block = values + begin * K;
    for (int k = 0; k < K; ++k) {
      uint8_t* stream = out + k * count + begin;
      for (int64_t i = 0; i < n; ++i) stream[i] = block[i * K + k];
    }
  }
}

void ScatterAny(const uint8_t* values, int width, int64_t count, uint8_t* out) {
  for (int k = 0; k < width; ++k) {
    uint8_t* stream = out + static_cast<int64_t>(k) * count;
    for (int64_t i = 0; i < count; ++i) stream[i] = values[i * width + k];
  }
}

}  // namespace

Status DecodeByteStreamSplit(const uint8_t* data, size_t size, int width, int64_t count, uint8_t* out) {
  if (width <= 0 || count < 0) {
    return Status::InvalidArgument("BYTE_STREAM_SPLIT decode with width " + std::to_string(width) +
                                   " and count " + std::to_string(count));
  }
  uint64_t expected = 0;
  if (__builtin_mul_overflow(static_cast<uint64_t>(count), static_cast<uint64_t>(width), &expected) ||
      expected != size) {
    return Status::Corruption("BYTE_STREAM_SPLIT data has " + std::to_string(size) + " bytes, expected " +
                              std::to_string(count) + " values of " + std::to_string(width) + " bytes");
  }
  switch (width) {
    case 2: GatherFixed<2>(data, count, out); break;
    case 4: GatherFixed<4>(data, count, out); break;
    case 8: GatherFixed<8>(data, count, out); break;
    case 16: GatherFixed<16>(data, count, out); break;
    default: GatherAny(data, width, count, out); break;
  }
  return Status::OK();
}

std::vector<uint8_t> EncodeByteStreamSplit(const uint8_t* values, int width, int64_t count) {
  if (width <= 0 || count <= 0) return {};
  std::vector<uint8_t> out(static_cast<size_t>(count) * static_cast<size_t>(width));
  switch (width) {
    case 2: ScatterFixed<2>(values, count, out.data()); break;
    case 4: ScatterFixed<4>(values, count, out.data()); break;
    case 8: ScatterFixed<8>(values, count, out.data()); break;
    case 16: ScatterFixed<16>(values, count, out.data()); break;
    default: ScatterAny(values, width, count, out.data()); break;
  }
  return out;
}

}  // namespace floe::parquet
