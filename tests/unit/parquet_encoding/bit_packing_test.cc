// Checks the specialised unpackers against a bit-at-a-time reference for
// every width, including inputs cut short inside the last group.
#include "formats/parquet/encoding/bit_packing.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace floe::parquet::bits {
namespace {

uint64_t ReferenceValue(const std::vector<uint8_t>& bytes, size_t in_size, int width, int64_t index) {
  uint64_t v = 0;
  for (int b = 0; b < width; ++b) {
    const uint64_t bit = static_cast<uint64_t>(index) * width + b;
    const size_t byte = static_cast<size_t>(bit / 8);
    if (byte < in_size && ((bytes[byte] >> (bit % 8)) & 1)) v |= uint64_t{1} << b;
  }
  return v;
}

TEST(BitPackingTest, Unpack32MatchesReferenceForEveryWidth) {
  std::mt19937_64 rng(32);
  for (int width = 0; width <= 32; ++width) {
    for (int64_t groups : {1, 2, 3, 5, 17}) {
      std::vector<uint8_t> bytes(static_cast<size_t>(groups * width));
      for (auto& b : bytes) b = static_cast<uint8_t>(rng());
      // Full input, and input missing up to 3 trailing bytes.
      for (size_t cut = 0; cut <= std::min<size_t>(3, bytes.size()); ++cut) {
        const size_t in_size = bytes.size() - cut;
        std::vector<uint32_t> out(static_cast<size_t>(groups * 8), 0xdeadbeef);
        UnpackGroups32(bytes.data(), in_size, width, groups, out.data());
        for (int64_t i = 0; i < groups * 8; ++i) {
          ASSERT_EQ(out[static_cast<size_t>(i)], ReferenceValue(bytes, in_size, width, i))
              << "width " << width << " groups " << groups << " cut " << cut << " index " << i;
        }
      }
    }
  }
}

TEST(BitPackingTest, Unpack64MatchesReferenceForEveryWidth) {
  std::mt19937_64 rng(64);
  for (int width = 0; width <= 64; ++width) {
    for (int64_t groups : {1, 4, 9}) {
      std::vector<uint8_t> bytes(static_cast<size_t>(groups * width));
      for (auto& b : bytes) b = static_cast<uint8_t>(rng());
      for (size_t cut = 0; cut <= std::min<size_t>(2, bytes.size()); ++cut) {
        const size_t in_size = bytes.size() - cut;
        std::vector<uint64_t> out(static_cast<size_t>(groups * 8));
        UnpackGroups64(bytes.data(), in_size, width, groups, out.data());
        for (int64_t i = 0; i < groups * 8; ++i) {
          ASSERT_EQ(out[static_cast<size_t>(i)], ReferenceValue(bytes, in_size, width, i))
              << "width " << width << " index " << i;
        }
      }
    }
  }
}

TEST(BitPackingTest, PackThenUnpackRoundTrips) {
  std::mt19937_64 rng(7);
  for (int width = 0; width <= 64; ++width) {
    std::vector<uint64_t> values(40);
    const uint64_t mask = width == 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1;
    for (auto& v : values) v = rng() & mask;
    std::vector<uint8_t> packed = {0xAB};  // packing appends after existing bytes
    PackGroups(values.data(), 40, width, &packed);
    ASSERT_EQ(packed.size(), 1 + static_cast<size_t>(5 * width));
    std::vector<uint64_t> out(40);
    UnpackGroups64(packed.data() + 1, packed.size() - 1, width, 5, out.data());
    EXPECT_EQ(out, values) << "width " << width;
  }
}

TEST(BitPackingTest, Uleb128AndZigZag) {
  std::vector<uint8_t> buf;
  for (uint64_t v : {uint64_t{0}, uint64_t{127}, uint64_t{128}, uint64_t{300}, ~uint64_t{0}}) {
    buf.clear();
    WriteUleb128(v, &buf);
    size_t pos = 0;
    uint64_t back = 1;
    ASSERT_TRUE(ReadUleb128(buf.data(), buf.size(), &pos, &back));
    EXPECT_EQ(back, v);
    EXPECT_EQ(pos, buf.size());
    pos = 0;
    EXPECT_FALSE(ReadUleb128(buf.data(), buf.size() - 1, &pos, &back)) << "truncated varint " << v;
  }
  // 300 = 0xAC 0x02 (the protobuf documentation's example).
  buf.clear();
  WriteUleb128(300, &buf);
  EXPECT_EQ(buf, (std::vector<uint8_t>{0xAC, 0x02}));
  // Eleven continuation bytes, and a tenth byte carrying bits above 64.
  const std::vector<uint8_t> too_long(11, 0x80);
  size_t pos = 0;
  uint64_t v = 0;
  EXPECT_FALSE(ReadUleb128(too_long.data(), too_long.size(), &pos, &v));
  std::vector<uint8_t> overflow(9, 0xFF);
  overflow.push_back(0x02);
  pos = 0;
  EXPECT_FALSE(ReadUleb128(overflow.data(), overflow.size(), &pos, &v));

  EXPECT_EQ(ZigZagEncode(0), 0u);
  EXPECT_EQ(ZigZagEncode(-1), 1u);
  EXPECT_EQ(ZigZagEncode(1), 2u);
  EXPECT_EQ(ZigZagEncode(INT64_MIN), ~uint64_t{0});
  for (int64_t x : {int64_t{0}, int64_t{-1}, int64_t{5}, INT64_MIN, INT64_MAX}) {
    EXPECT_EQ(ZigZagDecode(ZigZagEncode(x)), x);
  }
}

}  // namespace
}  // namespace floe::parquet::bits
