// The batch and byte-level fast paths of the encodings: RleBitPackedEncoder
// PutValues/PutRepeated/sink against an oracle of the run/literal rules the
// writer's bytes follow, per-width bit packing against a bit-by-bit packer,
// RleBitPackedDecoder::DecodeBytes against Decode, and the 16-byte copies of
// PLAIN byte arrays at buffer ends.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "formats/parquet/encoding/bit_packing.h"
#include "formats/parquet/encoding/plain.h"
#include "formats/parquet/encoding/rle_bit_packed.h"
#include "test_util.h"

namespace floe::parquet {
namespace {

uint32_t MaskOf(int bit_width) {
  return bit_width >= 32 ? ~0u : (1u << bit_width) - 1;
}

// Packs values LSB first, one bit at a time.
std::vector<uint8_t> PackBitByBit(const std::vector<uint32_t>& values, int bit_width) {
  std::vector<uint8_t> out(values.size() * static_cast<size_t>(bit_width) / 8, 0);
  size_t bit = 0;
  for (uint32_t v : values) {
    for (int b = 0; b < bit_width; ++b, ++bit) {
      if ((v >> b) & 1) out[bit / 8] |= static_cast<uint8_t>(1u << (bit % 8));
    }
  }
  return out;
}

void PutUleb(uint64_t v, std::vector<uint8_t>* out) {
  while (v >= 0x80) {
    out->push_back(static_cast<uint8_t>(v | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<uint8_t>(v));
}

// The writer's run/literal rules, written out plainly: a repeat of 8 or more
// becomes an RLE run after lending values to complete the pending literals'
// last group; shorter repeats join the literals, which are flushed as one
// bit-packed run once 504 are held; the last group is zero-padded.
std::vector<uint8_t> OracleEncode(const std::vector<uint32_t>& input, int bit_width) {
  std::vector<uint8_t> out;
  std::vector<uint32_t> literals;
  auto flush = [&](bool final) {
    if (final && literals.size() % 8 != 0) literals.resize(literals.size() + 8 - literals.size() % 8, 0);
    const size_t groups = literals.size() / 8;
    if (groups == 0) return;
    PutUleb((groups << 1) | 1, &out);
    std::vector<uint32_t> packed(literals.begin(),
                                 literals.begin() + static_cast<std::ptrdiff_t>(groups * 8));
    const std::vector<uint8_t> bytes = PackBitByBit(packed, bit_width);
    out.insert(out.end(), bytes.begin(), bytes.end());
    literals.erase(literals.begin(), literals.begin() + static_cast<std::ptrdiff_t>(groups * 8));
  };
  size_t i = 0;
  while (i < input.size()) {
    const uint32_t v = input[i] & MaskOf(bit_width);
    size_t j = i + 1;
    while (j < input.size() && (input[j] & MaskOf(bit_width)) == v) ++j;
    size_t run = j - i;
    if (run >= 8) {
      const size_t borrow = (8 - literals.size() % 8) % 8;
      literals.insert(literals.end(), borrow, v);
      run -= borrow;
      flush(false);
      if (run >= 8) {
        PutUleb(static_cast<uint64_t>(run) << 1, &out);
        for (int b = 0; b < (bit_width + 7) / 8; ++b) out.push_back(static_cast<uint8_t>(v >> (8 * b)));
        run = 0;
      }
    }
    literals.insert(literals.end(), run, v);
    if (literals.size() >= 504) flush(false);
    i = j;
  }
  flush(true);
  return out;
}

// Runs of random lengths: mostly short (literals), some long (RLE), some
// exactly around the 8-value threshold.
std::vector<uint32_t> RunValues(std::mt19937_64& rng, int bit_width, size_t n) {
  std::vector<uint32_t> values;
  while (values.size() < n) {
    const uint32_t v = static_cast<uint32_t>(rng()) & MaskOf(bit_width);
    const size_t pick = rng() % 10;
    const size_t repeat = pick < 5 ? 1 : pick < 8 ? 6 + rng() % 5 : 1 + rng() % 700;
    for (size_t k = 0; k < repeat && values.size() < n; ++k) values.push_back(v);
  }
  return values;
}

TEST(RleEncoderFastPaths, PutValuesPutRepeatedAndSinkMatchTheRunRules) {
  std::mt19937_64 rng(7);
  for (int bit_width = 0; bit_width <= 32; ++bit_width) {
    for (size_t n : {size_t{0}, size_t{1}, size_t{7}, size_t{8}, size_t{9}, size_t{503}, size_t{504},
                     size_t{505}, size_t{3000}}) {
      const std::vector<uint32_t> values = RunValues(rng, bit_width, n);
      const std::vector<uint8_t> expected = OracleEncode(values, bit_width);

      RleBitPackedEncoder by_put(bit_width);
      for (uint32_t v : values) by_put.Put(v);
      EXPECT_EQ(by_put.Finish(), expected) << "Put, width " << bit_width << ", n " << n;

      RleBitPackedEncoder by_batch(bit_width);
      // Split the batch at an arbitrary point, inside a run if there is one.
      const size_t cut = n / 3;
      by_batch.PutValues(values.data(), static_cast<int64_t>(cut));
      by_batch.PutValues(values.data() + cut, static_cast<int64_t>(n - cut));
      EXPECT_EQ(by_batch.values_written(), static_cast<int64_t>(n));
      EXPECT_EQ(by_batch.Finish(), expected) << "PutValues, width " << bit_width << ", n " << n;

      std::vector<uint8_t> sink = {0xAB};  // bytes already there are kept
      RleBitPackedEncoder by_runs(bit_width, &sink);
      for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && values[j] == values[i]) ++j;
        by_runs.PutRepeated(values[i], static_cast<int64_t>(j - i));
        i = j;
      }
      EXPECT_TRUE(by_runs.Finish().empty());
      ASSERT_FALSE(sink.empty());
      EXPECT_EQ(sink[0], 0xAB);
      EXPECT_EQ(std::vector<uint8_t>(sink.begin() + 1, sink.end()), expected)
          << "PutRepeated into a sink, width " << bit_width << ", n " << n;

      RleBitPackedDecoder decoder(expected.data(), expected.size(), bit_width);
      std::vector<uint32_t> decoded(n);
      ASSERT_OK(decoder.Decode(decoded.data(), static_cast<int64_t>(n)));
      EXPECT_EQ(decoded, values);
    }
  }
}

TEST(RleEncoderFastPaths, HigherBitsAreDroppedInEveryPath) {
  const std::vector<uint32_t> values = {0xF5, 0xF5, 0x15, 0x05, 0x05, 0x05,
                                        0x05, 0x05, 0x05, 0x05, 0x05, 0x35};
  RleBitPackedEncoder by_put(4), by_batch(4);
  for (uint32_t v : values) by_put.Put(v);
  by_batch.PutValues(values.data(), static_cast<int64_t>(values.size()));
  const std::vector<uint8_t> expected = OracleEncode(values, 4);
  EXPECT_EQ(by_put.Finish(), expected);
  EXPECT_EQ(by_batch.Finish(), expected);
}

TEST(BitPackingFastPaths, EveryWidthMatchesBitByBitPacking) {
  std::mt19937_64 rng(11);
  for (int bit_width = 0; bit_width <= 32; ++bit_width) {
    for (size_t groups : {size_t{1}, size_t{3}, size_t{63}}) {
      std::vector<uint32_t> values(groups * 8);
      // Full-width values, then bits above the width that must be ignored.
      for (auto& v : values) v = static_cast<uint32_t>(rng());
      std::vector<uint32_t> masked = values;
      for (auto& v : masked) v &= MaskOf(bit_width);
      std::vector<uint8_t> packed = {0x5A};
      bits::PackGroups(values.data(), static_cast<int64_t>(values.size()), bit_width, &packed);
      const std::vector<uint8_t> expected = PackBitByBit(masked, bit_width);
      ASSERT_EQ(packed.size(), expected.size() + 1) << "width " << bit_width;
      EXPECT_EQ(packed[0], 0x5A);
      EXPECT_EQ(std::vector<uint8_t>(packed.begin() + 1, packed.end()), expected) << "width " << bit_width;
    }
  }
}

TEST(RleDecoderFastPaths, DecodeBytesMatchesDecodeForWidthsUpToEight) {
  std::mt19937_64 rng(13);
  for (int bit_width = 0; bit_width <= 8; ++bit_width) {
    for (size_t n : {size_t{1}, size_t{5}, size_t{8}, size_t{511}, size_t{512}, size_t{513}, size_t{5000}}) {
      const std::vector<uint32_t> values = RunValues(rng, bit_width, n);
      const std::vector<uint8_t> encoded = OracleEncode(values, bit_width);
      // Decoded in pieces whose ends fall inside runs and groups.
      RleBitPackedDecoder decoder(encoded.data(), encoded.size(), bit_width);
      std::vector<uint8_t> out(n, 0xEE);
      int64_t sum = 0;
      uint32_t max_seen = 0;
      size_t done = 0;
      for (size_t piece : {size_t{3}, size_t{13}, size_t{600}}) {
        const size_t take = std::min(piece, n - done);
        ASSERT_OK(decoder.DecodeBytes(out.data() + done, static_cast<int64_t>(take), &sum, &max_seen));
        done += take;
      }
      ASSERT_OK(decoder.DecodeBytes(out.data() + done, static_cast<int64_t>(n - done), &sum, &max_seen));
      int64_t expected_sum = 0;
      uint32_t expected_max = 0;
      for (size_t i = 0; i < n; ++i) {
        ASSERT_EQ(out[i], values[i]) << "width " << bit_width << ", n " << n << ", value " << i;
        expected_sum += values[i];
        expected_max = std::max(expected_max, values[i]);
      }
      EXPECT_EQ(sum, expected_sum);
      EXPECT_EQ(max_seen, expected_max);
    }
  }
}

TEST(RleDecoderFastPaths, DecodeBytesReportsShortAndTruncatedInput) {
  const std::vector<uint32_t> values(100, 1);
  std::vector<uint32_t> mixed;
  for (int i = 0; i < 64; ++i) mixed.push_back(static_cast<uint32_t>(i % 3 == 0));
  for (const auto& input : {values, mixed}) {
    const std::vector<uint8_t> encoded = OracleEncode(input, 1);
    std::vector<uint8_t> out(input.size() + 8);
    int64_t sum = 0;
    uint32_t max_seen = 0;
    RleBitPackedDecoder decoder(encoded.data(), encoded.size(), 1);
    // More values than the data holds (past the zero padding).
    Status status = decoder.DecodeBytes(out.data(), static_cast<int64_t>(input.size() + 8), &sum, &max_seen);
    EXPECT_EQ(status.kind(), ErrorKind::kCorruption) << status.ToString();
    // A cut-off bit-packed run yields only the values its bytes hold.
    RleBitPackedDecoder cut(encoded.data(), encoded.size() - 1, 1);
    status = cut.DecodeBytes(out.data(), static_cast<int64_t>(input.size()), &sum, &max_seen);
    if (input == mixed) {
      EXPECT_EQ(status.kind(), ErrorKind::kCorruption) << status.ToString();
    }
  }
  std::vector<uint8_t> out(4);
  int64_t sum = 0;
  uint32_t max_seen = 0;
  const uint8_t wide[] = {0x02, 0x01};
  RleBitPackedDecoder too_wide(wide, sizeof(wide), 9);
  EXPECT_EQ(too_wide.DecodeBytes(out.data(), 1, &sum, &max_seen).kind(), ErrorKind::kCorruption);
}

TEST(PlainByteArrayFastPaths, ShortLongAndEmptyValuesAtBufferEnds) {
  std::mt19937_64 rng(17);
  for (int trial = 0; trial < 200; ++trial) {
    const size_t n = 1 + rng() % 40;
    std::vector<std::string> strings;
    std::vector<int64_t> offsets = {0};
    std::string all;
    for (size_t i = 0; i < n; ++i) {
      const size_t pick = rng() % 4;
      const size_t length = pick == 0   ? 0
                            : pick == 1 ? 14 + rng() % 5
                            : pick == 2 ? rng() % 8
                                        : 17 + rng() % 60;
      std::string s;
      for (size_t k = 0; k < length; ++k) s.push_back(static_cast<char>(rng()));
      all += s;
      offsets.push_back(static_cast<int64_t>(all.size()));
      strings.push_back(std::move(s));
    }
    std::vector<uint8_t> encoded;
    EncodePlainByteArrays(offsets.data(), reinterpret_cast<const uint8_t*>(all.data()),
                          static_cast<int64_t>(n), &encoded);
    std::vector<uint8_t> expected;
    for (const auto& s : strings) EncodePlainByteArray(s, &expected);
    ASSERT_EQ(encoded, expected) << "trial " << trial;

    std::vector<int64_t> decoded_offsets = {0};
    std::vector<uint8_t> decoded;
    size_t consumed = 0;
    ASSERT_OK(DecodePlainByteArray(encoded.data(), encoded.size(), static_cast<int64_t>(n), &decoded_offsets,
                                   &decoded, &consumed));
    EXPECT_EQ(consumed, encoded.size());
    EXPECT_EQ(decoded_offsets, offsets);
    EXPECT_EQ(std::string(decoded.begin(), decoded.end()), all);
  }
}

}  // namespace
}  // namespace floe::parquet
