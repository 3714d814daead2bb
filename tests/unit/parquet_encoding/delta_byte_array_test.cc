#include "formats/parquet/encoding/delta_byte_array.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "formats/parquet/encoding/delta_binary_packed.h"
#include "test_util.h"

namespace floe::parquet {
namespace {

std::vector<uint8_t> Bytes(std::initializer_list<int> bytes) {
  std::vector<uint8_t> out;
  for (int b : bytes) out.push_back(static_cast<uint8_t>(b));
  return out;
}

void Append(std::vector<uint8_t>* out, const std::vector<uint8_t>& more) {
  out->insert(out->end(), more.begin(), more.end());
}
void Append(std::vector<uint8_t>* out, std::string_view text) {
  out->insert(out->end(), text.begin(), text.end());
}

std::vector<std::string> Strings(const std::vector<int64_t>& offsets, const std::vector<uint8_t>& data,
                                 size_t first, int64_t start) {
  std::vector<std::string> out;
  int64_t begin = start;
  for (size_t i = first; i < offsets.size(); ++i) {
    out.emplace_back(reinterpret_cast<const char*>(data.data()) + begin,
                     static_cast<size_t>(offsets[i] - begin));
    begin = offsets[i];
  }
  return out;
}

std::vector<std::string_view> Views(const std::vector<std::string>& values) {
  return std::vector<std::string_view>(values.begin(), values.end());
}

// Random strings sharing prefixes, as sorted keys or URLs do.
std::vector<std::string> RandomStrings(std::mt19937_64& rng, size_t n) {
  std::vector<std::string> values;
  std::string previous;
  for (size_t i = 0; i < n; ++i) {
    std::string v = previous.substr(0, previous.empty() ? 0 : rng() % (previous.size() + 1));
    const size_t extra = rng() % 12;
    for (size_t k = 0; k < extra; ++k) v.push_back(static_cast<char>(rng()));
    values.push_back(v);
    previous = v;
  }
  return values;
}

TEST(DeltaLengthByteArrayTest, SpecExample) {
  // Lengths 5,5,6,6 as DELTA_BINARY_PACKED (deltas 0,1,0; width 1), then the data.
  std::vector<uint8_t> expected = Bytes({0x80, 0x01, 0x04, 0x04, 0x0A, 0x00, 0x01, 0, 0, 0, 0x02, 0, 0, 0});
  Append(&expected, "HelloWorldFoobarABCDEF");
  EXPECT_EQ(EncodeDeltaLengthByteArray({"Hello", "World", "Foobar", "ABCDEF"}), expected);

  // Decoding appends after existing column contents.
  std::vector<int64_t> offsets = {0, 3};
  std::vector<uint8_t> data = {'x', 'y', 'z'};
  ASSERT_OK(DecodeDeltaLengthByteArray(expected.data(), expected.size(), 4, &offsets, &data));
  EXPECT_EQ(offsets, (std::vector<int64_t>{0, 3, 8, 13, 19, 25}));
  EXPECT_EQ(Strings(offsets, data, 2, 3), (std::vector<std::string>{"Hello", "World", "Foobar", "ABCDEF"}));
}

TEST(DeltaByteArrayTest, SpecExample) {
  // Prefix lengths 0,2,0,3 (deltas 2,-2,3; min -2; width 3: 4,0,5 -> 44 01).
  std::vector<uint8_t> expected = Bytes({0x80, 0x01, 0x04, 0x04, 0x00, 0x03, 0x03, 0, 0, 0, 0x44, 0x01});
  expected.resize(expected.size() + 10, 0);
  // Suffix lengths 4,2,6,5 (deltas -2,4,-1; min -2; width 3: 0,6,1 -> 70 00).
  Append(&expected, Bytes({0x80, 0x01, 0x04, 0x04, 0x08, 0x03, 0x03, 0, 0, 0, 0x70, 0x00}));
  expected.resize(expected.size() + 10, 0);
  Append(&expected, "axislebabbleyhood");
  EXPECT_EQ(EncodeDeltaByteArray({"axis", "axle", "babble", "babyhood"}), expected);

  std::vector<int64_t> offsets = {0};
  std::vector<uint8_t> data;
  ASSERT_OK(DecodeDeltaByteArray(expected.data(), expected.size(), 4, &offsets, &data));
  EXPECT_EQ(Strings(offsets, data, 1, 0), (std::vector<std::string>{"axis", "axle", "babble", "babyhood"}));
}

TEST(DeltaByteArrayTest, RoundTripsRandomStrings) {
  std::mt19937_64 rng(77);
  for (size_t n : {0, 1, 2, 127, 128, 129, 1000}) {
    const std::vector<std::string> values = RandomStrings(rng, n);
    for (bool incremental : {false, true}) {
      const std::vector<uint8_t> encoded =
          incremental ? EncodeDeltaByteArray(Views(values)) : EncodeDeltaLengthByteArray(Views(values));
      std::vector<int64_t> offsets = {0};
      std::vector<uint8_t> data;
      const int64_t count = static_cast<int64_t>(n);
      ASSERT_OK(incremental
                    ? DecodeDeltaByteArray(encoded.data(), encoded.size(), count, &offsets, &data)
                    : DecodeDeltaLengthByteArray(encoded.data(), encoded.size(), count, &offsets, &data));
      EXPECT_EQ(Strings(offsets, data, 1, 0), values) << "n " << n << " incremental " << incremental;
    }
  }
}

TEST(DeltaByteArrayTest, DecodesAPrefixOfTheValues) {
  const std::vector<std::string> values = {"apple", "applet", "apply", "banana"};
  for (bool incremental : {false, true}) {
    const std::vector<uint8_t> encoded =
        incremental ? EncodeDeltaByteArray(Views(values)) : EncodeDeltaLengthByteArray(Views(values));
    std::vector<int64_t> offsets = {0};
    std::vector<uint8_t> data;
    ASSERT_OK(incremental ? DecodeDeltaByteArray(encoded.data(), encoded.size(), 2, &offsets, &data)
                          : DecodeDeltaLengthByteArray(encoded.data(), encoded.size(), 2, &offsets, &data));
    EXPECT_EQ(Strings(offsets, data, 1, 0), (std::vector<std::string>{"apple", "applet"}));
  }
}

TEST(DeltaByteArrayTest, TruncatedInputIsCorruption) {
  std::mt19937_64 rng(3);
  const std::vector<std::string> values = RandomStrings(rng, 200);
  for (bool incremental : {false, true}) {
    const std::vector<uint8_t> encoded =
        incremental ? EncodeDeltaByteArray(Views(values)) : EncodeDeltaLengthByteArray(Views(values));
    for (size_t cut = 0; cut < encoded.size(); ++cut) {
      std::vector<uint8_t> truncated(encoded.begin(), encoded.begin() + static_cast<std::ptrdiff_t>(cut));
      std::vector<int64_t> offsets;
      std::vector<uint8_t> data;
      Status status = incremental ? DecodeDeltaByteArray(truncated.data(), cut, 200, &offsets, &data)
                                  : DecodeDeltaLengthByteArray(truncated.data(), cut, 200, &offsets, &data);
      // The string bytes come last, so every cut loses some of them.
      EXPECT_EQ(status.kind(), ErrorKind::kCorruption) << "cut " << cut << " " << status.ToString();
    }
  }
}

TEST(DeltaByteArrayTest, ZeroValuesNeedNoData) {
  std::vector<int64_t> offsets;
  std::vector<uint8_t> data;
  ASSERT_OK(DecodeDeltaLengthByteArray(nullptr, 0, 0, &offsets, &data));
  ASSERT_OK(DecodeDeltaByteArray(nullptr, 0, 0, &offsets, &data));
  EXPECT_TRUE(offsets.empty());
  EXPECT_EQ(DecodeDeltaByteArray(nullptr, 0, 1, &offsets, &data).kind(), ErrorKind::kCorruption);
}

TEST(DeltaByteArrayTest, CorruptLengthsAreRejected) {
  std::vector<int64_t> offsets;
  std::vector<uint8_t> data;
  // Negative length: lengths 3, -1 (first 6, block min delta zigzag(-4)=7, width 0).
  std::vector<uint8_t> negative = Bytes({0x80, 0x01, 0x04, 0x02, 0x06, 0x07, 0, 0, 0, 0});
  Append(&negative, "abc");
  Status status = DecodeDeltaLengthByteArray(negative.data(), negative.size(), 2, &offsets, &data);
  EXPECT_EQ(status.kind(), ErrorKind::kCorruption);
  EXPECT_NE(status.message().find("negative"), std::string::npos) << status.message();

  // A prefix longer than the previous value: prefixes 0, 5 after "ab".
  std::vector<uint8_t> long_prefix = Bytes({0x80, 0x01, 0x04, 0x02, 0x00, 0x0A, 0, 0, 0, 0});
  Append(&long_prefix, Bytes({0x80, 0x01, 0x04, 0x02, 0x04, 0x01, 0, 0, 0, 0}));  // suffix lengths 2, 1
  Append(&long_prefix, "abc");
  status = DecodeDeltaByteArray(long_prefix.data(), long_prefix.size(), 2, &offsets, &data);
  EXPECT_EQ(status.kind(), ErrorKind::kCorruption);
  EXPECT_NE(status.message().find("prefix length 5 of value 1"), std::string::npos) << status.message();

  // More values asked for than the stream holds.
  const std::vector<uint8_t> two = EncodeDeltaLengthByteArray({"a", "b"});
  EXPECT_EQ(DecodeDeltaLengthByteArray(two.data(), two.size(), 3, &offsets, &data).kind(),
            ErrorKind::kCorruption);
  // Lengths adding up to more than the remaining bytes (2^31-1 declared).
  std::vector<uint8_t> big = Bytes({0x80, 0x01, 0x04, 0x01, 0xFE, 0xFF, 0xFF, 0xFF, 0x0F});
  Append(&big, "abc");
  EXPECT_EQ(DecodeDeltaLengthByteArray(big.data(), big.size(), 1, &offsets, &data).kind(),
            ErrorKind::kCorruption);
}

TEST(DeltaByteArrayTest, ExpansionIsCapped) {
  // 100000 values each repeating the whole previous 60000-byte value would
  // expand to 6 GB from a few hundred bytes: rejected before allocating.
  const int32_t length = 60000;
  const int64_t count = 100000;
  std::vector<int32_t> prefixes(count, length);
  prefixes[0] = 0;
  std::vector<int32_t> suffixes(count, 0);
  suffixes[0] = length;
  std::vector<uint8_t> encoded;
  for (const auto* lengths : {&prefixes, &suffixes}) {
    DeltaBinaryPackedEncoder<int32_t> encoder;
    encoder.Put(lengths->data(), count);
    Append(&encoded, encoder.Finish());
  }
  encoded.resize(encoded.size() + length, 'q');
  std::vector<int64_t> offsets;
  std::vector<uint8_t> data;
  Status status = DecodeDeltaByteArray(encoded.data(), encoded.size(), count, &offsets, &data);
  EXPECT_EQ(status.kind(), ErrorKind::kCorruption);
  EXPECT_NE(status.message().find("2 GiB"), std::string::npos) << status.message();
}

}  // namespace
}  // namespace floe::parquet
