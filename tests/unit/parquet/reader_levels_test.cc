// Definition/repetition level decoding: RLE with its length prefix (v1),
// legacy BIT_PACKED, prefix-less v2, and levels above the maximum.
#include <gtest/gtest.h>

#include <cstring>

#include "formats/parquet/encoding/rle_bit_packed.h"
#include "formats/parquet/reader/levels.h"
#include "test_util.h"

namespace floe::parquet {
namespace {

std::vector<uint8_t> RleWithPrefix(const std::vector<uint32_t>& levels, int bit_width) {
  RleBitPackedEncoder encoder(bit_width);
  for (uint32_t v : levels) encoder.Put(v);
  std::vector<uint8_t> body = encoder.Finish();
  const uint32_t length = static_cast<uint32_t>(body.size());
  std::vector<uint8_t> out(4);
  std::memcpy(out.data(), &length, 4);
  out.insert(out.end(), body.begin(), body.end());
  return out;
}

TEST(ParquetLevelsTest, RleV1ReportsBytesUsed) {
  const std::vector<uint32_t> levels = {0, 1, 2, 2, 2, 2, 2, 2, 2, 2, 1, 0};
  std::vector<uint8_t> bytes = RleWithPrefix(levels, 2);
  const size_t encoded = bytes.size();
  bytes.push_back(0xAB);  // value bytes follow the levels
  std::vector<int16_t> out(levels.size());
  ASSERT_OK_AND_ASSIGN(size_t used,
                       DecodeLevelsV1(Encoding::RLE, bytes.data(), bytes.size(), 2,
                                      static_cast<int64_t>(levels.size()), "definition", out.data()));
  EXPECT_EQ(used, encoded);
  for (size_t i = 0; i < levels.size(); ++i) EXPECT_EQ(out[i], static_cast<int16_t>(levels[i])) << i;
}

TEST(ParquetLevelsTest, LegacyBitPackedIsMostSignificantBitFirst) {
  // Levels 1,0,1,1,0,0,0,1 with bit width 1, MSB first: 0b10110001.
  const std::vector<uint8_t> bytes = {0xB1};
  std::vector<int16_t> out(8);
  ASSERT_OK_AND_ASSIGN(size_t used, DecodeLevelsV1(Encoding::BIT_PACKED, bytes.data(), bytes.size(), 1, 8,
                                                   "definition", out.data()));
  EXPECT_EQ(used, 1u);
  EXPECT_EQ(out, (std::vector<int16_t>{1, 0, 1, 1, 0, 0, 0, 1}));
  // Width 2 (max level 3): 3, 0, 2 -> 11 00 10 (pad) -> 0b11001000.
  const std::vector<uint8_t> wide = {0xC8};
  std::vector<int16_t> three(3);
  ASSERT_OK(DecodeLevelsV1(Encoding::BIT_PACKED, wide.data(), wide.size(), 3, 3, "repetition", three.data())
                .status());
  EXPECT_EQ(three, (std::vector<int16_t>{3, 0, 2}));
  // Too few bytes for the count.
  EXPECT_EQ(DecodeLevelsV1(Encoding::BIT_PACKED, bytes.data(), bytes.size(), 1, 9, "definition", out.data())
                .status()
                .kind(),
            ErrorKind::kCorruption);
}

TEST(ParquetLevelsTest, BadLevelsAreCorruption) {
  // A level above the maximum (bit width 2 can hold 3, the column allows 2).
  std::vector<uint8_t> bytes = RleWithPrefix({0, 3}, 2);
  std::vector<int16_t> out(2);
  auto result = DecodeLevelsV1(Encoding::RLE, bytes.data(), bytes.size(), 2, 2, "definition", out.data());
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.status().message().find("exceeds"), std::string::npos);
  // The length prefix claims more bytes than the page has.
  bytes[0] = 0xFF;
  EXPECT_EQ(DecodeLevelsV1(Encoding::RLE, bytes.data(), bytes.size(), 2, 2, "definition", out.data())
                .status()
                .kind(),
            ErrorKind::kCorruption);
  // Fewer levels encoded than the page announces (v2 has no prefix).
  std::vector<uint8_t> v2 = RleWithPrefix({1, 1}, 1);
  std::vector<int16_t> many(100);
  EXPECT_EQ(DecodeLevelsV2(v2.data() + 4, v2.size() - 4, 1, 100, "repetition", many.data()).kind(),
            ErrorKind::kCorruption);
}

}  // namespace
}  // namespace floe::parquet
