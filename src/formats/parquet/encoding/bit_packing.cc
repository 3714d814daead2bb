#include "formats/parquet/encoding/bit_packing.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <utility>

namespace floe::parquet::bits {

static_assert(std::endian::native == std::endian::little, "the unpackers load little-endian words directly");

namespace {

// The unpacker of a full group reads at most this many bytes past the group's
// start beyond its own bit_width bytes (one 8-byte load plus one spill byte).
constexpr size_t kUnpackSlack = 9;

template <typename U, int W, int I>
inline U ExtractValue(const uint8_t* in) {
  constexpr int bit = I * W;
  constexpr int byte = bit / 8;
  constexpr int shift = bit % 8;
  uint64_t word;
  std::memcpy(&word, in + byte, sizeof(word));
  uint64_t v = word >> shift;
  if constexpr (shift + W > 64) v |= static_cast<uint64_t>(in[byte + 8]) << (64 - shift);
  if constexpr (W < 64) v &= (uint64_t{1} << W) - 1;
  return static_cast<U>(v);
}

// Unpacks one group of 8 values; `in` must have W + kUnpackSlack readable bytes.
template <typename U, int W>
inline void UnpackGroup(const uint8_t* in, U* out) {
  [&]<int... I>(std::integer_sequence<int, I...>) {
    ((out[I] = ExtractValue<U, W, I>(in)), ...);
  }
  (std::make_integer_sequence<int, 8>{});
}

template <typename U, int W>
void UnpackGroupsFixed(const uint8_t* in, size_t in_size, int64_t groups, U* out) {
  if constexpr (W == 0) {
    std::fill_n(out, groups * 8, U{0});
  } else {
    int64_t fast = 0;
    if (in_size >= W + kUnpackSlack) {
      fast = std::min<int64_t>(groups, static_cast<int64_t>((in_size - kUnpackSlack - W) / W) + 1);
    }
    for (int64_t g = 0; g < fast; ++g) UnpackGroup<U, W>(in + g * W, out + g * 8);
    // Groups near the end of the input go through a zero-padded copy so the
    // wide loads stay in bounds; a short final group reads as zero-padded.
    for (int64_t g = fast; g < groups; ++g) {
      uint8_t padded[64 + kUnpackSlack] = {};
      const size_t start = static_cast<size_t>(g) * W;
      if (start < in_size) std::memcpy(padded, in + start, std::min<size_t>(W, in_size - start));
      UnpackGroup<U, W>(padded, out + g * 8);
    }
  }
}

template <typename U>
using UnpackFn = void (*)(const uint8_t*, size_t, int64_t, U*);

template <typename U, int... W>
constexpr auto MakeUnpackTable(std::integer_sequence<int, W...>) {
  return std::array<UnpackFn<U>, sizeof...(W)>{&UnpackGroupsFixed<U, W>...};
}

constexpr auto kUnpack32 = MakeUnpackTable<uint32_t>(std::make_integer_sequence<int, 33>{});
constexpr auto kUnpack64 = MakeUnpackTable<uint64_t>(std::make_integer_sequence<int, 65>{});

template <typename U>
void PackGroupsImpl(const U* values, int64_t count, int bit_width, std::vector<uint8_t>* out) {
  const size_t start = out->size();
  const size_t bytes = static_cast<size_t>(count) * bit_width / 8;
  out->resize(start + bytes);
  if (bit_width == 0) return;
  uint8_t* dst = out->data() + start;
  const uint64_t mask = bit_width == 64 ? ~uint64_t{0} : (uint64_t{1} << bit_width) - 1;
  uint64_t acc = 0;
  int used = 0;
  for (int64_t i = 0; i < count; ++i) {
    const uint64_t v = static_cast<uint64_t>(values[i]) & mask;
    acc |= v << used;
    used += bit_width;
    if (used >= 64) {
      std::memcpy(dst, &acc, 8);
      dst += 8;
      used -= 64;
      acc = used == 0 ? 0 : v >> (bit_width - used);
    }
  }
  // count is a multiple of 8, so the remaining bits fill whole bytes.
  std::memcpy(dst, &acc, static_cast<size_t>(used / 8));
}

// Packs `groups` groups of 8 values of W bits (W <= 32) into W bytes each.
// W is a constant, so the accumulator's shifts and stores are fixed per
// value position and the loop over a group unrolls into straight-line code.
template <int W>
void PackGroupsFixed32(const uint32_t* values, int64_t groups, uint8_t* dst) {
  if constexpr (W == 0) {
    return;
  } else {
    constexpr uint64_t kMask = (uint64_t{1} << W) - 1;
    for (int64_t g = 0; g < groups; ++g, values += 8, dst += W) {
      uint64_t acc = 0;
      int used = 0;
      uint8_t* out = dst;
#pragma GCC unroll 8
      for (int i = 0; i < 8; ++i) {
        const uint64_t v = values[i] & kMask;
        acc |= v << used;
        used += W;
        if (used >= 64) {
          std::memcpy(out, &acc, 8);
          out += 8;
          used -= 64;
          acc = used == 0 ? 0 : v >> (W - used);
        }
      }
      // 8 * W bits end on a byte boundary.
      std::memcpy(out, &acc, static_cast<size_t>(used / 8));
    }
  }
}

using PackFn = void (*)(const uint32_t*, int64_t, uint8_t*);

template <int... W>
constexpr auto MakePackTable(std::integer_sequence<int, W...>) {
  return std::array<PackFn, sizeof...(W)>{&PackGroupsFixed32<W>...};
}

constexpr auto kPack32 = MakePackTable(std::make_integer_sequence<int, 33>{});

}  // namespace

void UnpackGroups32(const uint8_t* in, size_t in_size, int bit_width, int64_t groups, uint32_t* out) {
  kUnpack32[static_cast<size_t>(bit_width)](in, in_size, groups, out);
}

void UnpackGroups64(const uint8_t* in, size_t in_size, int bit_width, int64_t groups, uint64_t* out) {
  kUnpack64[static_cast<size_t>(bit_width)](in, in_size, groups, out);
}

void PackGroups(const uint64_t* values, int64_t count, int bit_width, std::vector<uint8_t>* out) {
  PackGroupsImpl(values, count, bit_width, out);
}

void PackGroups(const uint32_t* values, int64_t count, int bit_width, std::vector<uint8_t>* out) {
  if (bit_width < 0 || bit_width > 32) return PackGroupsImpl(values, count, bit_width, out);
  const size_t start = out->size();
  const int64_t groups = count / 8;
  out->resize(start + static_cast<size_t>(groups) * static_cast<size_t>(bit_width));
  kPack32[static_cast<size_t>(bit_width)](values, groups, out->data() + start);
}

bool ReadUleb128(const uint8_t* data, size_t size, size_t* pos, uint64_t* value) {
  uint64_t result = 0;
  for (int i = 0; i < 10; ++i) {
    if (*pos >= size) return false;
    const uint8_t byte = data[(*pos)++];
    if (i == 9 && byte > 1) return false;  // more than 64 bits
    result |= static_cast<uint64_t>(byte & 0x7f) << (7 * i);
    if ((byte & 0x80) == 0) {
      *value = result;
      return true;
    }
  }
  return false;
}

void WriteUleb128(uint64_t value, std::vector<uint8_t>* out) {
  while (value >= 0x80) {
    out->push_back(static_cast<uint8_t>(value | 0x80));
    value >>= 7;
  }
  out->push_back(static_cast<uint8_t>(value));
}

}  // namespace floe::parquet::bits
