#include "formats/parquet/encoding/delta_binary_packed.h"

#include <gtest/gtest.h>

#include <limits>
#include <random>
#include <type_traits>
#include <vector>

#include "test_util.h"

namespace floe::parquet {
namespace {

// An independent, bit-at-a-time DELTA_BINARY_PACKED writer with a
// configurable block layout, so the decoder is tested on layouts floe's own
// encoder never produces (other writers use 256 or 2048 value blocks).
template <typename T>
std::vector<uint8_t> ReferenceEncode(const std::vector<T>& values, uint64_t block_size, uint64_t miniblocks) {
  using U = std::make_unsigned_t<T>;
  std::vector<uint8_t> out;
  auto varint = [&](uint64_t v) {
    do {
      uint8_t byte = v & 0x7f;
      v >>= 7;
      out.push_back(static_cast<uint8_t>(byte | (v ? 0x80 : 0)));
    } while (v);
  };
  auto zigzag = [](int64_t v) { return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63); };
  varint(block_size);
  varint(miniblocks);
  varint(values.size());
  varint(zigzag(values.empty() ? 0 : values[0]));
  const uint64_t per_mini = block_size / miniblocks;
  for (size_t start = 1; start < values.size(); start += block_size) {
    const size_t m = std::min<size_t>(block_size, values.size() - start);
    std::vector<U> deltas(m);
    T min_delta = std::numeric_limits<T>::max();
    for (size_t k = 0; k < m; ++k) {
      deltas[k] = static_cast<U>(static_cast<U>(values[start + k]) - static_cast<U>(values[start + k - 1]));
      min_delta = std::min(min_delta, static_cast<T>(deltas[k]));
    }
    varint(zigzag(min_delta));
    std::vector<int> widths(miniblocks, 0);
    for (size_t k = 0; k < m; ++k) {
      const U rel = static_cast<U>(deltas[k] - static_cast<U>(min_delta));
      int w = 0;
      while (w < static_cast<int>(sizeof(T) * 8) && (rel >> w) != 0) ++w;
      widths[k / per_mini] = std::max(widths[k / per_mini], w);
    }
    for (int w : widths) out.push_back(static_cast<uint8_t>(w));
    for (size_t mini = 0; mini * per_mini < m; ++mini) {
      std::vector<uint8_t> bytes(per_mini * widths[mini] / 8, 0);
      for (size_t k = 0; k < per_mini && mini * per_mini + k < m; ++k) {
        const U rel = static_cast<U>(deltas[mini * per_mini + k] - static_cast<U>(min_delta));
        for (int b = 0; b < widths[mini]; ++b) {
          const size_t bit = k * widths[mini] + b;
          if ((rel >> b) & 1) bytes[bit / 8] |= static_cast<uint8_t>(1 << (bit % 8));
        }
      }
      out.insert(out.end(), bytes.begin(), bytes.end());
    }
  }
  return out;
}

template <typename T>
std::vector<uint8_t> Encode(const std::vector<T>& values) {
  DeltaBinaryPackedEncoder<T> encoder;
  encoder.Put(values.data(), static_cast<int64_t>(values.size()));
  return encoder.Finish();
}

// Decodes all values in uneven chunks and checks where the stream ends.
template <typename T>
void ExpectDecodes(const std::vector<uint8_t>& encoded, const std::vector<T>& values) {
  DeltaBinaryPackedDecoder<T> decoder;
  ASSERT_OK(decoder.Init(encoded.data(), encoded.size()));
  ASSERT_EQ(decoder.total_values(), static_cast<int64_t>(values.size()));
  std::vector<T> out(values.size());
  size_t done = 0;
  for (size_t chunk = 1; done < values.size(); chunk = chunk * 7 % 200 + 1) {
    const size_t take = std::min(chunk, values.size() - done);
    ASSERT_OK(decoder.Decode(out.data() + done, static_cast<int64_t>(take)));
    done += take;
  }
  ASSERT_EQ(out, values);
  ASSERT_OK_AND_ASSIGN(size_t consumed, decoder.BytesConsumedAfterAllValues());
  EXPECT_EQ(consumed, encoded.size());
  T extra;
  EXPECT_EQ(decoder.Decode(&extra, 1).kind(), ErrorKind::kCorruption);
}

template <typename T>
std::vector<T> RandomValues(std::mt19937_64& rng, size_t n, int bits) {
  std::vector<T> values(n);
  for (auto& v : values) {
    const uint64_t raw = rng();
    v = static_cast<T>(bits >= 64 ? raw : raw & ((uint64_t{1} << bits) - 1));
    if (rng() % 2)
      v = static_cast<T>(static_cast<std::make_unsigned_t<T>>(0) - static_cast<std::make_unsigned_t<T>>(v));
  }
  return values;
}

TEST(DeltaBinaryPackedTest, SpecExamplesWithBlockSize128) {
  // Encodings.md examples 1 and 2 (their block size 8 is invalid in real
  // files), written with floe's 128-value blocks of 4 miniblocks.
  const std::vector<uint8_t> example1 = {0x80, 0x01, 0x04, 0x05, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00};
  EXPECT_EQ(Encode<int32_t>({1, 2, 3, 4, 5}), example1);
  ExpectDecodes<int32_t>(example1, {1, 2, 3, 4, 5});
  // Deltas -2,-2,-2,1,1,1,1 less min -2 are 0,0,0,3,3,3,3: width 2, packed
  // LSB first as C0 3F, the 32-value miniblock padded with zeros to 8 bytes.
  const std::vector<uint8_t> example2 = {0x80, 0x01, 0x04, 0x08, 0x0E, 0x03, 0x02, 0x00, 0x00,
                                         0x00, 0xC0, 0x3F, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
  EXPECT_EQ(Encode<int64_t>({7, 5, 3, 1, 2, 3, 4, 5}), example2);
  ExpectDecodes<int64_t>(example2, {7, 5, 3, 1, 2, 3, 4, 5});
}

TEST(DeltaBinaryPackedTest, EmptyAndSingleValue) {
  const std::vector<uint8_t> empty = Encode<int32_t>({});
  EXPECT_EQ(empty, (std::vector<uint8_t>{0x80, 0x01, 0x04, 0x00, 0x00}));
  ExpectDecodes<int32_t>(empty, {});
  const std::vector<uint8_t> single = Encode<int64_t>({-3});
  EXPECT_EQ(single, (std::vector<uint8_t>{0x80, 0x01, 0x04, 0x01, 0x05}));
  ExpectDecodes<int64_t>(single, {-3});
}

template <typename T>
void RoundTripSuite(uint64_t seed) {
  std::mt19937_64 rng(seed);
  for (size_t n : {2, 3, 31, 32, 33, 127, 128, 129, 130, 1000, 4097}) {
    for (int bits : {0, 1, 7, 16, 31, 32, 33, 63, 64}) {
      if (bits > static_cast<int>(sizeof(T) * 8)) continue;
      const std::vector<T> values = RandomValues<T>(rng, n, bits);
      const std::vector<uint8_t> encoded = Encode(values);
      EXPECT_EQ(encoded, ReferenceEncode(values, 128, 4)) << "n " << n << " bits " << bits;
      ExpectDecodes(encoded, values);
    }
  }
}

TEST(DeltaBinaryPackedTest, RoundTripsInt32) {
  RoundTripSuite<int32_t>(32);
}
TEST(DeltaBinaryPackedTest, RoundTripsInt64) {
  RoundTripSuite<int64_t>(64);
}

TEST(DeltaBinaryPackedTest, ExtremesWrapAround) {
  std::vector<int32_t> i32;
  std::vector<int64_t> i64;
  for (int i = 0; i < 300; ++i) {
    i32.push_back(i % 3 == 0 ? INT32_MIN : (i % 3 == 1 ? INT32_MAX : 0));
    i64.push_back(i % 3 == 0 ? INT64_MIN : (i % 3 == 1 ? INT64_MAX : -1));
  }
  ExpectDecodes(Encode(i32), i32);
  ExpectDecodes(Encode(i64), i64);
  ExpectDecodes(ReferenceEncode(i64, 256, 2), i64);
}

TEST(DeltaBinaryPackedTest, DecodesOtherBlockLayouts) {
  std::mt19937_64 rng(5);
  for (auto [block, minis] :
       std::vector<std::pair<uint64_t, uint64_t>>{{128, 1}, {256, 8}, {512, 4}, {2048, 64}}) {
    for (size_t n : {1, 100, 129, 3000}) {
      const std::vector<int64_t> values = RandomValues<int64_t>(rng, n, 40);
      ExpectDecodes(ReferenceEncode(values, block, minis), values);
      const std::vector<int32_t> small = RandomValues<int32_t>(rng, n, 12);
      ExpectDecodes(ReferenceEncode(small, block, minis), small);
    }
  }
}

TEST(DeltaBinaryPackedTest, LastBlockUnusedBitWidthsAreIgnored) {
  // 5 values: one used miniblock; the three unused bit widths hold garbage.
  std::vector<uint8_t> encoded = Encode<int32_t>({10, 11, 13, 16, 20});
  ASSERT_EQ(encoded.size(), 5u + 1u + 4u + 8u);  // header, min delta, 4 widths, one 32x2-bit miniblock
  ASSERT_EQ(encoded[6], 2);
  encoded[7] = 200;
  encoded[8] = 65;
  encoded[9] = 33;
  ExpectDecodes<int32_t>(encoded, {10, 11, 13, 16, 20});
}

TEST(DeltaBinaryPackedTest, TruncatedInputIsCorruptionOrCorrect) {
  std::mt19937_64 rng(11);
  const std::vector<int64_t> values = RandomValues<int64_t>(rng, 300, 20);
  const std::vector<uint8_t> encoded = Encode(values);
  for (size_t cut = 0; cut < encoded.size(); ++cut) {
    DeltaBinaryPackedDecoder<int64_t> decoder;
    Status status = decoder.Init(encoded.data(), cut);
    std::vector<int64_t> out(values.size());
    if (status.ok()) status = decoder.Decode(out.data(), static_cast<int64_t>(out.size()));
    if (status.ok()) {
      EXPECT_EQ(out, values) << "cut " << cut;  // only padding of the last miniblock was cut
    } else {
      EXPECT_EQ(status.kind(), ErrorKind::kCorruption) << status.ToString();
    }
  }
}

TEST(DeltaBinaryPackedTest, CorruptHeadersAreRejected) {
  auto init_kind = [](std::vector<uint8_t> bytes) {
    DeltaBinaryPackedDecoder<int32_t> decoder;
    return decoder.Init(bytes.data(), bytes.size()).kind();
  };
  EXPECT_EQ(init_kind({0x08, 0x01, 0x05, 0x02}), ErrorKind::kCorruption);        // block size 8
  EXPECT_EQ(init_kind({0x00, 0x01, 0x05, 0x02}), ErrorKind::kCorruption);        // block size 0
  EXPECT_EQ(init_kind({0x80, 0x01, 0x00, 0x05, 0x02}), ErrorKind::kCorruption);  // 0 miniblocks
  EXPECT_EQ(init_kind({0x80, 0x01, 0x03, 0x05, 0x02}), ErrorKind::kCorruption);  // 128/3
  EXPECT_EQ(init_kind({0x80, 0x01, 0x08, 0x05, 0x02}), ErrorKind::kCorruption);  // 16 per miniblock
  EXPECT_EQ(init_kind({0x80, 0x01, 0x04}), ErrorKind::kCorruption);              // truncated
  // Total count 2^63 (above INT64_MAX).
  EXPECT_EQ(init_kind({0x80, 0x01, 0x04, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01, 0x00}),
            ErrorKind::kCorruption);
  // Block size 2^25.
  EXPECT_EQ(init_kind({0x80, 0x80, 0x80, 0x10, 0x04, 0x05, 0x02}), ErrorKind::kCorruption);
}

TEST(DeltaBinaryPackedTest, CorruptBlocksAreRejected) {
  // Huge declared count with no block data.
  const std::vector<uint8_t> huge = {0x80, 0x01, 0x04, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F, 0x00};
  DeltaBinaryPackedDecoder<int64_t> decoder;
  ASSERT_OK(decoder.Init(huge.data(), huge.size()));
  std::vector<int64_t> out(1000);
  EXPECT_EQ(decoder.Decode(out.data(), 1000).kind(), ErrorKind::kCorruption);
  DeltaBinaryPackedDecoder<int64_t> walker;
  ASSERT_OK(walker.Init(huge.data(), huge.size()));
  EXPECT_FALSE(walker.BytesConsumedAfterAllValues().ok());

  // Miniblock bit width 65 for INT64, 33 for INT32.
  std::vector<uint8_t> bad = Encode<int64_t>({1, 5, 2, 9});
  bad[6] = 65;
  DeltaBinaryPackedDecoder<int64_t> wide;
  ASSERT_OK(wide.Init(bad.data(), bad.size()));
  Status status = wide.Decode(out.data(), 4);
  EXPECT_EQ(status.kind(), ErrorKind::kCorruption);
  EXPECT_NE(status.message().find("bit width 65"), std::string::npos) << status.message();
  std::vector<uint8_t> bad32 = Encode<int32_t>({1, 5, 2, 9});
  bad32[6] = 33;
  bad32.resize(bad32.size() + 200, 0);
  DeltaBinaryPackedDecoder<int32_t> wide32;
  ASSERT_OK(wide32.Init(bad32.data(), bad32.size()));
  std::vector<int32_t> out32(4);
  EXPECT_EQ(wide32.Decode(out32.data(), 4).kind(), ErrorKind::kCorruption);
  // Asking for more values than the header announces.
  const std::vector<uint8_t> five = Encode<int32_t>({1, 2, 3, 4, 5});
  DeltaBinaryPackedDecoder<int32_t> few;
  ASSERT_OK(few.Init(five.data(), five.size()));
  std::vector<int32_t> six(6);
  EXPECT_EQ(few.Decode(six.data(), 6).kind(), ErrorKind::kCorruption);
}

}  // namespace
}  // namespace floe::parquet
