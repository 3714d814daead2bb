#include "formats/parquet/encoding/rle_bit_packed.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "test_util.h"

namespace floe::parquet {
namespace {

std::vector<uint8_t> Encode(const std::vector<uint32_t>& values, int bit_width) {
  RleBitPackedEncoder encoder(bit_width);
  for (uint32_t v : values) encoder.Put(v);
  EXPECT_EQ(encoder.values_written(), static_cast<int64_t>(values.size()));
  return encoder.Finish();
}

// Random values mixing short literals and long repeats.
std::vector<uint32_t> MixedValues(std::mt19937_64& rng, int bit_width, size_t n) {
  const uint32_t mask = bit_width == 32 ? ~0u : (1u << bit_width) - 1;
  std::vector<uint32_t> values;
  while (values.size() < n) {
    const uint32_t v = static_cast<uint32_t>(rng()) & mask;
    const size_t repeat = rng() % 4 == 0 ? 1 + rng() % 40 : 1;
    for (size_t i = 0; i < repeat && values.size() < n; ++i) values.push_back(v);
  }
  return values;
}

TEST(RleBitPackedTest, SpecExampleBitPackedZeroToSeven) {
  // Encodings.md: 0..7 with bit width 3 pack to 10001000 11000110 11111010,
  // behind the header varint(1 group << 1 | 1).
  const std::vector<uint8_t> expected = {0x03, 0x88, 0xC6, 0xFA};
  EXPECT_EQ(Encode({0, 1, 2, 3, 4, 5, 6, 7}, 3), expected);
  RleBitPackedDecoder decoder(expected.data(), expected.size(), 3);
  std::vector<uint32_t> out(8);
  ASSERT_OK(decoder.Decode(out.data(), 8));
  EXPECT_EQ(out, (std::vector<uint32_t>{0, 1, 2, 3, 4, 5, 6, 7}));
}

TEST(RleBitPackedTest, RepeatsBecomeRleRuns) {
  // 100 x 5 at width 3: header varint(100 << 1) = C8 01, value in one byte.
  EXPECT_EQ(Encode(std::vector<uint32_t>(100, 5), 3), (std::vector<uint8_t>{0xC8, 0x01, 0x05}));
  // Width 17 stores the repeated value in 3 little-endian bytes.
  RleBitPackedEncoder wide(17);
  wide.PutRepeated(0x1ABCD, 1000000);
  EXPECT_EQ(wide.Finish(), (std::vector<uint8_t>{0x80, 0x89, 0x7A, 0xCD, 0xAB, 0x01}));
  // Literals before a repeat borrow from it to fill their group: 3 literals
  // + 5 of the repeat form one bit-packed group, the other 20 an RLE run.
  std::vector<uint32_t> values = {1, 2, 3};
  values.insert(values.end(), 25, 7);
  const std::vector<uint8_t> encoded = Encode(values, 3);
  EXPECT_EQ(encoded, (std::vector<uint8_t>{0x03, 0xD1, 0xFE, 0xFF, 0x28, 0x07}));
  // Seven repeats stay bit-packed: 5 x7 then 1 is one group.
  EXPECT_EQ(Encode({5, 5, 5, 5, 5, 5, 5, 1}, 3), (std::vector<uint8_t>{0x03, 0x6D, 0xDB, 0x36}));
}

TEST(RleBitPackedTest, RoundTripsEveryBitWidth) {
  std::mt19937_64 rng(20260101);
  for (int bit_width = 0; bit_width <= 32; ++bit_width) {
    for (size_t n : {0, 1, 7, 8, 9, 31, 33, 127, 129, 1000, 5003}) {
      const std::vector<uint32_t> values = MixedValues(rng, bit_width, n);
      const std::vector<uint8_t> encoded = Encode(values, bit_width);
      // Decode in uneven chunks to cross group and run boundaries.
      RleBitPackedDecoder decoder(encoded.data(), encoded.size(), bit_width);
      std::vector<uint32_t> out(n);
      size_t done = 0;
      for (size_t chunk = 1; done < n; chunk = chunk * 3 % 29 + 1) {
        const size_t take = std::min(chunk, n - done);
        ASSERT_OK(decoder.Decode(out.data() + done, static_cast<int64_t>(take)));
        done += take;
      }
      ASSERT_EQ(out, values) << "bit width " << bit_width << " n " << n;
      EXPECT_EQ(decoder.bytes_consumed(), encoded.size());
    }
  }
}

TEST(RleBitPackedTest, PutRepeatedMatchesPut) {
  RleBitPackedEncoder by_put(4);
  RleBitPackedEncoder by_repeat(4);
  const std::vector<std::pair<uint32_t, int64_t>> runs = {{1, 3}, {2, 9}, {2, 2}, {15, 1}, {0, 70}, {3, 5}};
  for (auto [value, count] : runs) {
    for (int64_t i = 0; i < count; ++i) by_put.Put(value);
    by_repeat.PutRepeated(value, count);
  }
  EXPECT_EQ(by_put.Finish(), by_repeat.Finish());
}

TEST(RleBitPackedTest, DecodeUpToStopsAtEndOfInput) {
  const std::vector<uint8_t> encoded = Encode({1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, 1);  // one RLE run of 10
  RleBitPackedDecoder decoder(encoded.data(), encoded.size(), 1);
  std::vector<uint32_t> out(20);
  ASSERT_OK_AND_ASSIGN(int64_t got, decoder.DecodeUpTo(out.data(), 20));
  EXPECT_EQ(got, 10);
  ASSERT_OK_AND_ASSIGN(int64_t more, decoder.DecodeUpTo(out.data(), 20));
  EXPECT_EQ(more, 0);
  RleBitPackedDecoder again(encoded.data(), encoded.size(), 1);
  Status status = again.Decode(out.data(), 11);
  EXPECT_EQ(status.kind(), ErrorKind::kCorruption);
  EXPECT_NE(status.message().find("10 of 11"), std::string::npos) << status.message();
}

TEST(RleBitPackedTest, EmptyInputAndZeroWidth) {
  RleBitPackedDecoder empty(nullptr, 0, 5);
  uint32_t value = 0;
  EXPECT_EQ(empty.Decode(&value, 1).kind(), ErrorKind::kCorruption);
  ASSERT_OK(empty.Decode(&value, 0));
  // Width 0: a bit-packed run of 2 groups carries 16 zeros in no bytes.
  const uint8_t zero_width[] = {0x05};
  RleBitPackedDecoder decoder(zero_width, 1, 0);
  std::vector<uint32_t> out(16, 9);
  ASSERT_OK(decoder.Decode(out.data(), 16));
  EXPECT_EQ(out, std::vector<uint32_t>(16, 0));
}

TEST(RleBitPackedTest, TruncatedInputIsCorruptionOrCorrectPrefix) {
  std::mt19937_64 rng(99);
  for (int bit_width : {1, 3, 8, 13, 32}) {
    const std::vector<uint32_t> values = MixedValues(rng, bit_width, 300);
    const std::vector<uint8_t> encoded = Encode(values, bit_width);
    for (size_t cut = 0; cut < encoded.size(); ++cut) {
      std::vector<uint8_t> truncated(encoded.begin(), encoded.begin() + static_cast<std::ptrdiff_t>(cut));
      RleBitPackedDecoder decoder(truncated.data(), truncated.size(), bit_width);
      std::vector<uint32_t> out(values.size());
      Status status = decoder.Decode(out.data(), static_cast<int64_t>(out.size()));
      if (status.ok()) {
        // Only the zero padding of the final group may be missing.
        EXPECT_EQ(out, values) << "cut " << cut;
      } else {
        EXPECT_EQ(status.kind(), ErrorKind::kCorruption) << status.ToString();
      }
    }
  }
}

TEST(RleBitPackedTest, CorruptHeadersAreRejected) {
  std::vector<uint32_t> out(64);
  // Bit width outside 0..32.
  const uint8_t run[] = {0x02, 0x01};
  RleBitPackedDecoder wide(run, sizeof(run), 65);
  EXPECT_EQ(wide.Decode(out.data(), 1).kind(), ErrorKind::kCorruption);
  RleBitPackedDecoder negative(run, sizeof(run), -1);
  EXPECT_EQ(negative.Decode(out.data(), 1).kind(), ErrorKind::kCorruption);
  // Run length 2^31 (above the spec's limit): header varint(2^32).
  const uint8_t huge[] = {0x80, 0x80, 0x80, 0x80, 0x10, 0x01};
  RleBitPackedDecoder huge_decoder(huge, sizeof(huge), 1);
  EXPECT_EQ(huge_decoder.Decode(out.data(), 1).kind(), ErrorKind::kCorruption);
  // A varint header longer than 10 bytes.
  const std::vector<uint8_t> endless(12, 0xFF);
  RleBitPackedDecoder endless_decoder(endless.data(), endless.size(), 1);
  EXPECT_EQ(endless_decoder.Decode(out.data(), 1).kind(), ErrorKind::kCorruption);
  // RLE value 4 does not fit in 2 bits.
  const uint8_t too_wide_value[] = {0x04, 0x04};
  RleBitPackedDecoder value_decoder(too_wide_value, sizeof(too_wide_value), 2);
  Status status = value_decoder.Decode(out.data(), 2);
  EXPECT_EQ(status.kind(), ErrorKind::kCorruption);
  EXPECT_NE(status.message().find("wider than bit width 2"), std::string::npos) << status.message();
  // RLE run missing its value bytes.
  const uint8_t no_value[] = {0x04, 0x01};
  RleBitPackedDecoder missing(no_value, sizeof(no_value), 16);
  EXPECT_EQ(missing.Decode(out.data(), 2).kind(), ErrorKind::kCorruption);
  // A bit-packed run declaring 2^31-1 groups over 3 bytes yields only what is there.
  const uint8_t big_packed[] = {0xFF, 0xFF, 0xFF, 0xFF, 0x0F, 0xFF, 0xFF, 0xFF};
  RleBitPackedDecoder packed(big_packed, sizeof(big_packed), 3);
  ASSERT_OK_AND_ASSIGN(int64_t got, packed.DecodeUpTo(out.data(), 64));
  EXPECT_EQ(got, 8);
  EXPECT_EQ(out[0], 7u);
}

TEST(RleBitPackedTest, BitWidthFor) {
  EXPECT_EQ(BitWidthFor(0), 0);
  EXPECT_EQ(BitWidthFor(1), 1);
  EXPECT_EQ(BitWidthFor(2), 2);
  EXPECT_EQ(BitWidthFor(255), 8);
  EXPECT_EQ(BitWidthFor(256), 9);
  EXPECT_EQ(BitWidthFor(~uint64_t{0}), 64);
}

}  // namespace
}  // namespace floe::parquet
