// Round trips, corruption handling and size checks for every block codec.
#include "compression/codec.h"

#include <gtest/gtest.h>
#include <lz4.h>
#include <zlib.h>
#include <zstd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <new>
#include <random>
#include <string>
#include <vector>

#include "test_util.h"

// The largest single allocation made through operator new since the last
// reset, to prove that untrusted size fields are not allocated up front.
static std::atomic<size_t> g_largest_allocation{0};

void* operator new(size_t size) {
  size_t seen = g_largest_allocation.load();
  while (size > seen && !g_largest_allocation.compare_exchange_weak(seen, size)) {
  }
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
// The replaced operator new above allocates with malloc, so free is the
// matching release; GCC 12 cannot see that once operator new is inlined.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, size_t) noexcept {
  std::free(p);
}

namespace floe {
namespace {

const Codec kAllCodecs[] = {Codec::kNone,      Codec::kSnappy,   Codec::kGzip,
                            Codec::kBrotli,    Codec::kZstd,     Codec::kLz4Raw,
                            Codec::kLz4Hadoop, Codec::kLz4Frame, Codec::kDeflateRaw};

std::vector<uint8_t> Bytes(const std::string& s) {
  return std::vector<uint8_t>(s.begin(), s.end());
}

std::vector<uint8_t> RandomBytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> out(n);
  for (auto& b : out) b = static_cast<uint8_t>(rng());
  return out;
}

// Compressible but not trivial: words from a small vocabulary.
std::vector<uint8_t> TextLike(size_t n, uint32_t seed) {
  static const char* kWords[] = {"alpha ", "beta ", "gamma ", "delta ", "floe ", "iceberg ", "parquet "};
  std::mt19937 rng(seed);
  std::vector<uint8_t> out;
  while (out.size() < n) {
    const char* w = kWords[rng() % 7];
    out.insert(out.end(), w, w + std::strlen(w));
  }
  out.resize(n);
  return out;
}

class CodecRoundTrip : public ::testing::TestWithParam<Codec> {};

TEST_P(CodecRoundTrip, EmptyTinyIncompressibleAndLarge) {
  const Codec codec = GetParam();
  const std::vector<std::vector<uint8_t>> inputs = {{},
                                                    Bytes("x"),
                                                    Bytes("hello, floe"),
                                                    RandomBytes(1000, 1),
                                                    RandomBytes(300000, 2),
                                                    TextLike(3 << 20, 3),
                                                    std::vector<uint8_t>(1 << 20, 0)};
  for (const auto& input : inputs) {
    SCOPED_TRACE(std::string(CodecName(codec)) + " input size " + std::to_string(input.size()));
    std::vector<uint8_t> compressed;
    ASSERT_OK(Compress(codec, input, 0, &compressed));
    std::vector<uint8_t> decompressed = {1, 2, 3};
    ASSERT_OK(Decompress(codec, compressed, static_cast<int64_t>(input.size()), &decompressed));
    EXPECT_EQ(decompressed, input);
    // Unknown size (Avro style) must give the same bytes.
    ASSERT_OK(Decompress(codec, compressed, -1, &decompressed));
    EXPECT_EQ(decompressed, input);
  }
}

TEST_P(CodecRoundTrip, ExplicitLevel) {
  const Codec codec = GetParam();
  const std::vector<uint8_t> input = TextLike(100000, 4);
  std::vector<uint8_t> compressed, decompressed;
  ASSERT_OK(Compress(codec, input, 5, &compressed));
  ASSERT_OK(Decompress(codec, compressed, static_cast<int64_t>(input.size()), &decompressed));
  EXPECT_EQ(decompressed, input);
}

TEST_P(CodecRoundTrip, SizeMismatchIsCorruption) {
  const Codec codec = GetParam();
  const std::vector<uint8_t> input = TextLike(100, 5);
  std::vector<uint8_t> compressed, decompressed;
  ASSERT_OK(Compress(codec, input, 0, &compressed));
  for (int64_t expected : {int64_t{120}, int64_t{99}, int64_t{1}}) {
    Status status = Decompress(codec, compressed, expected, &decompressed);
    EXPECT_EQ(status.kind(), ErrorKind::kCorruption) << CodecName(codec) << " expected " << expected;
    EXPECT_NE(status.message().find(CodecName(codec)), std::string::npos) << status.message();
    EXPECT_TRUE(decompressed.empty());
  }
}

TEST_P(CodecRoundTrip, GarbageIsCorruptionNotCrash) {
  const Codec codec = GetParam();
  if (codec == Codec::kNone) GTEST_SKIP() << "no framing to violate";
  std::vector<uint8_t> decompressed;
  for (uint32_t seed = 0; seed < 200; ++seed) {
    std::vector<uint8_t> garbage = RandomBytes(1 + seed * 7, seed);
    Status status = Decompress(codec, garbage, 5000, &decompressed, 1 << 20);
    EXPECT_FALSE(status.ok()) << CodecName(codec) << " seed " << seed;
    if (!status.ok()) {
      EXPECT_EQ(status.kind(), ErrorKind::kCorruption) << status.ToString();
    }
    // Unknown size, small cap: still no crash, and output within the cap.
    Status unknown = Decompress(codec, garbage, -1, &decompressed, 1 << 16);
    if (unknown.ok()) {
      EXPECT_LE(decompressed.size(), size_t{1} << 16);
    } else {
      EXPECT_EQ(unknown.kind(), ErrorKind::kCorruption) << unknown.ToString();
    }
  }
}

TEST_P(CodecRoundTrip, TruncatedAndBitFlippedInputNeverCrashes) {
  const Codec codec = GetParam();
  const std::vector<uint8_t> input = TextLike(50000, 6);
  std::vector<uint8_t> compressed, decompressed;
  ASSERT_OK(Compress(codec, input, 0, &compressed));
  for (size_t cut : {size_t{1}, compressed.size() / 2, compressed.size() - 1}) {
    std::span<const uint8_t> truncated(compressed.data(), cut);
    Status status = Decompress(codec, truncated, static_cast<int64_t>(input.size()), &decompressed);
    EXPECT_EQ(status.kind(), ErrorKind::kCorruption) << CodecName(codec) << " cut at " << cut;
  }
  std::mt19937 rng(7);
  for (int i = 0; i < 100; ++i) {
    std::vector<uint8_t> flipped = compressed;
    flipped[rng() % flipped.size()] ^= static_cast<uint8_t>(1u << (rng() % 8));
    Status status = Decompress(codec, flipped, static_cast<int64_t>(input.size()), &decompressed);
    if (status.ok()) {
      EXPECT_EQ(decompressed.size(), input.size());  // some flips land in literals
    } else {
      EXPECT_EQ(status.kind(), ErrorKind::kCorruption) << status.ToString();
    }
  }
}

TEST_P(CodecRoundTrip, OutputOverMaxSizeIsCorruption) {
  const Codec codec = GetParam();
  const std::vector<uint8_t> input(4 << 20, 'a');
  std::vector<uint8_t> compressed, decompressed;
  ASSERT_OK(Compress(codec, input, 0, &compressed));
  Status unknown = Decompress(codec, compressed, -1, &decompressed, 1 << 20);
  EXPECT_EQ(unknown.kind(), ErrorKind::kCorruption) << CodecName(codec) << ": " << unknown.ToString();
  EXPECT_TRUE(decompressed.empty());
  Status declared = Decompress(codec, compressed, static_cast<int64_t>(input.size()), &decompressed, 1 << 20);
  EXPECT_EQ(declared.kind(), ErrorKind::kCorruption) << declared.ToString();
}

TEST_P(CodecRoundTrip, DecompressIntoFillsTheCallersBufferExactly) {
  const Codec codec = GetParam();
  for (const std::vector<uint8_t>& input : {TextLike(70000, 9), RandomBytes(3000, 10), Bytes("x")}) {
    std::vector<uint8_t> compressed;
    ASSERT_OK(Compress(codec, input, 0, &compressed));
    // Stale bytes in the buffer (as in a reused page buffer) must all be overwritten.
    std::vector<uint8_t> output(input.size(), 0xA5);
    ASSERT_OK(DecompressInto(codec, compressed, output));
    EXPECT_EQ(output, input) << CodecName(codec);
    const int64_t bound = MaxDecompressedSize(codec, compressed.size());
    if (bound >= 0) {
      EXPECT_GE(bound, static_cast<int64_t>(input.size())) << CodecName(codec);
    }
    // A buffer one byte short or long is the page header disagreeing: Corruption.
    for (size_t size : {input.size() - 1, input.size() + 1}) {
      std::vector<uint8_t> wrong(size);
      Status status = DecompressInto(codec, compressed, wrong);
      EXPECT_EQ(status.kind(), ErrorKind::kCorruption) << CodecName(codec) << " size " << size;
    }
  }
}

TEST_P(CodecRoundTrip, DecompressIntoRejectsTruncatedAndFlippedInput) {
  const Codec codec = GetParam();
  const std::vector<uint8_t> input = TextLike(50000, 11);
  std::vector<uint8_t> compressed;
  ASSERT_OK(Compress(codec, input, 0, &compressed));
  std::vector<uint8_t> output(input.size());
  for (size_t cut : {size_t{1}, compressed.size() / 2, compressed.size() - 1}) {
    Status status = DecompressInto(codec, std::span<const uint8_t>(compressed.data(), cut), output);
    EXPECT_EQ(status.kind(), ErrorKind::kCorruption) << CodecName(codec) << " cut at " << cut;
  }
  std::mt19937 rng(12);
  for (int i = 0; i < 100; ++i) {
    std::vector<uint8_t> flipped = compressed;
    flipped[rng() % flipped.size()] ^= static_cast<uint8_t>(1u << (rng() % 8));
    Status status = DecompressInto(codec, flipped, output);
    if (!status.ok()) {
      EXPECT_EQ(status.kind(), ErrorKind::kCorruption) << status.ToString();
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllCodecs, CodecRoundTrip, ::testing::ValuesIn(kAllCodecs),
                         [](const ::testing::TestParamInfo<Codec>& info) {
                           return std::string(CodecName(info.param));
                         });

TEST(Codec, SizeMismatchMessageNamesBothSizes) {
  const std::vector<uint8_t> input = TextLike(100, 8);
  std::vector<uint8_t> compressed, decompressed;
  ASSERT_OK(Compress(Codec::kSnappy, input, 0, &compressed));
  Status status = Decompress(Codec::kSnappy, compressed, 120, &decompressed);
  EXPECT_EQ(status.ToString(), "Corruption: snappy: decompressed 100 bytes, page header says 120");
  ASSERT_OK(Compress(Codec::kZstd, input, 0, &compressed));
  status = Decompress(Codec::kZstd, compressed, 120, &decompressed);
  EXPECT_EQ(status.ToString(), "Corruption: zstd: decompressed 100 bytes, page header says 120");
}

TEST(Codec, ConcatenatedGzipMembersAreAllDecoded) {
  const std::vector<uint8_t> first = Bytes("first member;"), second = TextLike(70000, 9);
  std::vector<uint8_t> a, b;
  ASSERT_OK(Compress(Codec::kGzip, first, 0, &a));
  ASSERT_OK(Compress(Codec::kGzip, second, 9, &b));
  std::vector<uint8_t> joined = a;
  joined.insert(joined.end(), b.begin(), b.end());
  joined.insert(joined.end(), a.begin(), a.end());
  std::vector<uint8_t> expected = first;
  expected.insert(expected.end(), second.begin(), second.end());
  expected.insert(expected.end(), first.begin(), first.end());
  std::vector<uint8_t> out;
  ASSERT_OK(Decompress(Codec::kGzip, joined, static_cast<int64_t>(expected.size()), &out));
  EXPECT_EQ(out, expected);
  ASSERT_OK(Decompress(Codec::kGzip, joined, -1, &out));
  EXPECT_EQ(out, expected);
  // Garbage after a member is not silently dropped.
  joined.push_back(0x42);
  EXPECT_EQ(Decompress(Codec::kGzip, joined, -1, &out).kind(), ErrorKind::kCorruption);
}

TEST(Codec, GzipAcceptsZlibHeader) {
  const std::vector<uint8_t> input = TextLike(5000, 10);
  std::vector<uint8_t> compressed(compressBound(input.size()));
  uLongf length = compressed.size();
  ASSERT_EQ(compress2(compressed.data(), &length, input.data(), input.size(), 6), Z_OK);
  compressed.resize(length);
  std::vector<uint8_t> out;
  ASSERT_OK(Decompress(Codec::kGzip, compressed, static_cast<int64_t>(input.size()), &out));
  EXPECT_EQ(out, input);
}

TEST(Codec, ConcatenatedZstdFramesAreAllDecoded) {
  const std::vector<uint8_t> first = TextLike(1000, 11), second = RandomBytes(3000, 12);
  std::vector<uint8_t> a, b;
  ASSERT_OK(Compress(Codec::kZstd, first, 0, &a));
  ASSERT_OK(Compress(Codec::kZstd, second, 1, &b));
  a.insert(a.end(), b.begin(), b.end());
  std::vector<uint8_t> expected = first;
  expected.insert(expected.end(), second.begin(), second.end());
  std::vector<uint8_t> out;
  ASSERT_OK(Decompress(Codec::kZstd, a, static_cast<int64_t>(expected.size()), &out));
  EXPECT_EQ(out, expected);
  ASSERT_OK(Decompress(Codec::kZstd, a, -1, &out));
  EXPECT_EQ(out, expected);
}

TEST(Codec, ZstdDecodesStraightIntoTheCallersBufferWhenItsFrameDeclaresTheSize) {
  const std::vector<uint8_t> first = TextLike(1000, 11), second = RandomBytes(3000, 12);
  std::vector<uint8_t> a, b;
  ASSERT_OK(Compress(Codec::kZstd, first, 0, &a));
  ASSERT_OK(Compress(Codec::kZstd, second, 1, &b));
  EXPECT_TRUE(DeclaresDecompressedSize(Codec::kZstd, a, 1000));
  EXPECT_FALSE(DeclaresDecompressedSize(Codec::kZstd, a, 999));
  EXPECT_FALSE(DeclaresDecompressedSize(Codec::kZstd, a, -1));
  EXPECT_FALSE(DeclaresDecompressedSize(Codec::kSnappy, a, 1000));
  EXPECT_FALSE(DeclaresDecompressedSize(Codec::kZstd, std::span<const uint8_t>(a.data(), 3), 1000));
  // A skippable frame between two data frames (as some writers add).
  const uint8_t skippable[] = {0x50, 0x2A, 0x4D, 0x18, 2, 0, 0, 0, 0xAB, 0xCD};
  std::vector<uint8_t> stream = a;
  stream.insert(stream.end(), std::begin(skippable), std::end(skippable));
  stream.insert(stream.end(), b.begin(), b.end());
  std::vector<uint8_t> expected = first;
  expected.insert(expected.end(), second.begin(), second.end());
  std::vector<uint8_t> output(expected.size(), 0xA5);
  ASSERT_OK(DecompressInto(Codec::kZstd, stream, output));
  EXPECT_EQ(output, expected);
  // More than the buffer: named as such, not an opaque zstd error.
  std::vector<uint8_t> short_buffer(expected.size() - 10);
  EXPECT_EQ(DecompressInto(Codec::kZstd, stream, short_buffer).ToString(),
            "Corruption: zstd: decodes to more than the 3990 bytes the page header says");
  // The per-thread decoder is reset between calls: a failed call leaves no state behind.
  EXPECT_FALSE(DecompressInto(Codec::kZstd, std::span<const uint8_t>(a.data(), a.size() / 2), output).ok());
  std::vector<uint8_t> first_only(first.size());
  ASSERT_OK(DecompressInto(Codec::kZstd, a, first_only));
  EXPECT_EQ(first_only, first);
}

// Hadoop's streaming zstd codec (Spark, parquet-mr) writes frames that do not
// declare their size: DecompressInto still decodes them in place.
TEST(Codec, ZstdFramesWithoutADeclaredSizeDecodeInPlace) {
  const std::vector<uint8_t> input = TextLike(70000, 21);
  ZSTD_CCtx* context = ZSTD_createCCtx();
  ASSERT_NE(context, nullptr);
  ASSERT_EQ(ZSTD_CCtx_setParameter(context, ZSTD_c_contentSizeFlag, 0), 0u);
  std::vector<uint8_t> compressed(ZSTD_compressBound(input.size()));
  const size_t written =
      ZSTD_compress2(context, compressed.data(), compressed.size(), input.data(), input.size());
  ZSTD_freeCCtx(context);
  ASSERT_FALSE(ZSTD_isError(written));
  compressed.resize(written);
  EXPECT_FALSE(DeclaresDecompressedSize(Codec::kZstd, compressed, static_cast<int64_t>(input.size())));
  EXPECT_TRUE(DecompressesInPlace(Codec::kZstd));
  EXPECT_FALSE(DecompressesInPlace(Codec::kGzip));
  std::vector<uint8_t> output(input.size(), 0xA5);
  ASSERT_OK(DecompressInto(Codec::kZstd, compressed, output));
  EXPECT_EQ(output, input);
  std::vector<uint8_t> longer(input.size() + 1);
  EXPECT_EQ(DecompressInto(Codec::kZstd, compressed, longer).ToString(),
            "Corruption: zstd: decompressed 70000 bytes, page header says 70001");
}

TEST(Codec, DecompressionBombsStopAtMaxSize) {
  // 64 MiB of zeros compresses to a few KiB; decoding with a 1 MiB cap must
  // fail quickly instead of allocating the whole thing.
  const std::vector<uint8_t> zeros(64 << 20, 0);
  for (Codec codec : {Codec::kZstd, Codec::kDeflateRaw, Codec::kGzip, Codec::kBrotli, Codec::kLz4Frame}) {
    std::vector<uint8_t> bomb, out;
    ASSERT_OK(Compress(codec, zeros, 0, &bomb));
    ASSERT_LT(bomb.size(), size_t{1} << 20) << CodecName(codec);
    Status status = Decompress(codec, bomb, -1, &out, 1 << 20);
    EXPECT_EQ(status.kind(), ErrorKind::kCorruption) << CodecName(codec);
    EXPECT_NE(status.message().find("exceeds"), std::string::npos) << status.message();
  }
}

TEST(Codec, TinyInputCannotReserveTheClaimedSize) {
  // A page header claiming 1 GiB for a few compressed bytes must fail without
  // allocating anything near 1 GiB.
  for (Codec codec : kAllCodecs) {
    std::vector<uint8_t> compressed, out;
    ASSERT_OK(Compress(codec, Bytes("hello, floe"), 0, &compressed));
    g_largest_allocation = 0;
    Status status = Decompress(codec, compressed, int64_t{1} << 30, &out, int64_t{1} << 31);
    EXPECT_EQ(status.kind(), ErrorKind::kCorruption) << CodecName(codec);
    EXPECT_LT(g_largest_allocation.load(), size_t{16} << 20) << CodecName(codec);
  }
  // Garbage claiming a huge Hadoop LZ4 block or snappy length, size unknown.
  std::vector<uint8_t> out;
  const std::vector<uint8_t> hadoop = {0x7f, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x02, 0x1f, 0x00};
  g_largest_allocation = 0;
  EXPECT_FALSE(Decompress(Codec::kLz4Hadoop, hadoop, -1, &out).ok());
  EXPECT_LT(g_largest_allocation.load(), size_t{16} << 20);
  const std::vector<uint8_t> snappy = {0xff, 0xff, 0xff, 0xff, 0x07, 0x00};
  g_largest_allocation = 0;
  EXPECT_EQ(Decompress(Codec::kSnappy, snappy, -1, &out).kind(), ErrorKind::kCorruption);
  EXPECT_LT(g_largest_allocation.load(), size_t{16} << 20);
}

TEST(Codec, ExpectedSizeOverMaxSizeIsRejectedUpFront) {
  std::vector<uint8_t> compressed, out;
  ASSERT_OK(Compress(Codec::kSnappy, Bytes("abc"), 0, &compressed));
  Status status = Decompress(Codec::kSnappy, compressed, int64_t{1} << 40, &out, 1 << 20);
  EXPECT_EQ(status.kind(), ErrorKind::kCorruption);
}

TEST(Codec, EmptyInputWithZeroExpectedSizeIsEmpty) {
  std::vector<uint8_t> out = {9};
  for (Codec codec : kAllCodecs) {
    ASSERT_OK(Decompress(codec, {}, 0, &out));
    EXPECT_TRUE(out.empty());
  }
}

TEST(Codec, Lz4HadoopFramingIsWrittenBigEndianInBlocks) {
  const std::vector<uint8_t> input = TextLike(300000, 13);
  std::vector<uint8_t> compressed;
  ASSERT_OK(Compress(Codec::kLz4Hadoop, input, 0, &compressed));
  // First block: 128 KiB uncompressed, then its compressed length.
  ASSERT_GT(compressed.size(), 8u);
  const uint32_t first_size = (uint32_t{compressed[0]} << 24) | (uint32_t{compressed[1]} << 16) |
                              (uint32_t{compressed[2]} << 8) | compressed[3];
  EXPECT_EQ(first_size, 128u << 10);
  size_t pos = 0, total = 0, blocks = 0;
  while (pos + 8 <= compressed.size()) {
    auto be = [&](size_t at) {
      return (uint32_t{compressed[at]} << 24) | (uint32_t{compressed[at + 1]} << 16) |
             (uint32_t{compressed[at + 2]} << 8) | compressed[at + 3];
    };
    total += be(pos);
    pos += 8 + be(pos + 4);
    ++blocks;
  }
  EXPECT_EQ(pos, compressed.size());
  EXPECT_EQ(total, input.size());
  EXPECT_EQ(blocks, 3u);
}

// Hadoop framing assembled with liblz4 directly, independent of our encoder:
// two blocks, as parquet-mr writes pages larger than its buffer.
TEST(Codec, Lz4HadoopDecodesHandBuiltFraming) {
  const std::vector<uint8_t> first = TextLike(5000, 15), second = RandomBytes(3000, 16);
  std::vector<uint8_t> framed;
  for (const auto* block : {&first, &second}) {
    std::vector<uint8_t> compressed(LZ4_compressBound(static_cast<int>(block->size())));
    const int n = LZ4_compress_default(reinterpret_cast<const char*>(block->data()),
                                       reinterpret_cast<char*>(compressed.data()),
                                       static_cast<int>(block->size()), static_cast<int>(compressed.size()));
    ASSERT_GT(n, 0);
    for (uint32_t v : {static_cast<uint32_t>(block->size()), static_cast<uint32_t>(n)}) {
      for (int shift = 24; shift >= 0; shift -= 8) framed.push_back(static_cast<uint8_t>(v >> shift));
    }
    framed.insert(framed.end(), compressed.begin(), compressed.begin() + n);
  }
  std::vector<uint8_t> expected = first;
  expected.insert(expected.end(), second.begin(), second.end());
  std::vector<uint8_t> out;
  ASSERT_OK(Decompress(Codec::kLz4Hadoop, framed, static_cast<int64_t>(expected.size()), &out));
  EXPECT_EQ(out, expected);
  ASSERT_OK(Decompress(Codec::kLz4Hadoop, framed, -1, &out));
  EXPECT_EQ(out, expected);
  // A truncated frame is neither Hadoop, raw nor LZ4 frame.
  framed.pop_back();
  EXPECT_EQ(Decompress(Codec::kLz4Hadoop, framed, static_cast<int64_t>(expected.size()), &out).kind(),
            ErrorKind::kCorruption);
}

TEST(Codec, Lz4HadoopFallsBackToRawBlockAndFrame) {
  const std::vector<uint8_t> input = TextLike(20000, 14);
  std::vector<uint8_t> raw, frame, out;
  ASSERT_OK(Compress(Codec::kLz4Raw, input, 0, &raw));
  ASSERT_OK(Decompress(Codec::kLz4Hadoop, raw, static_cast<int64_t>(input.size()), &out));
  EXPECT_EQ(out, input);
  ASSERT_OK(Compress(Codec::kLz4Frame, input, 0, &frame));
  ASSERT_OK(Decompress(Codec::kLz4Hadoop, frame, static_cast<int64_t>(input.size()), &out));
  EXPECT_EQ(out, input);
}

TEST(Codec, MaxDecompressedSizeBoundsOnlyBoundedCodecs) {
  EXPECT_EQ(MaxDecompressedSize(Codec::kNone, 100), 100);
  EXPECT_GE(MaxDecompressedSize(Codec::kSnappy, 100), 100 * 21);  // snappy expands at most ~21x
  EXPECT_LE(MaxDecompressedSize(Codec::kSnappy, 100), 100 * 64);
  EXPECT_GE(MaxDecompressedSize(Codec::kLz4Raw, 100), 100 * 255);
  for (Codec unbounded : {Codec::kGzip, Codec::kZstd, Codec::kBrotli, Codec::kLz4Hadoop}) {
    EXPECT_EQ(MaxDecompressedSize(unbounded, 100), -1) << CodecName(unbounded);
  }
}

TEST(Codec, CodecNames) {
  EXPECT_STREQ(CodecName(Codec::kSnappy), "snappy");
  EXPECT_STREQ(CodecName(Codec::kLz4Hadoop), "lz4");
  EXPECT_STREQ(CodecName(Codec::kLz4Raw), "lz4_raw");
  EXPECT_STREQ(CodecName(Codec::kDeflateRaw), "deflate");
}

TEST(Crc32, CheckValue) {
  const std::vector<uint8_t> check = Bytes("123456789");
  EXPECT_EQ(Crc32(check), 0xCBF43926u);
  EXPECT_EQ(Crc32({}), 0u);
  // Incremental use: the seed continues a running CRC.
  const uint32_t head = Crc32(std::span<const uint8_t>(check.data(), 4));
  EXPECT_EQ(Crc32(std::span<const uint8_t>(check.data() + 4, 5), head), 0xCBF43926u);
}

TEST(CompressInto, MatchesCompressForBoundedCodecsIntoUnclearedBuffers) {
  std::mt19937_64 rng(31);
  std::vector<std::vector<uint8_t>> inputs = {{}, {7}};
  std::vector<uint8_t> random(100000), repetitive(100000);
  for (auto& b : random) b = static_cast<uint8_t>(rng());
  for (size_t i = 0; i < repetitive.size(); ++i) repetitive[i] = static_cast<uint8_t>("abcabd"[i % 6]);
  inputs.push_back(random);
  inputs.push_back(repetitive);
  for (Codec codec : {Codec::kNone, Codec::kSnappy, Codec::kLz4Raw}) {
    for (int level : {0, 1, 9}) {
      if (codec != Codec::kLz4Raw && level != 0) continue;
      for (const auto& input : inputs) {
        std::vector<uint8_t> expected;
        ASSERT_OK(Compress(codec, input, level, &expected));
        const int64_t bound = MaxCompressedSize(codec, input.size());
        ASSERT_GE(bound, static_cast<int64_t>(expected.size())) << CodecName(codec);
        std::vector<uint8_t> buffer(static_cast<size_t>(bound) + 1, 0xCD);  // not cleared
        ASSERT_OK_AND_ASSIGN(size_t written, CompressInto(codec, input, level, buffer));
        EXPECT_EQ(std::vector<uint8_t>(buffer.begin(), buffer.begin() + static_cast<std::ptrdiff_t>(written)),
                  expected)
            << CodecName(codec) << " level " << level << " size " << input.size();
        if (bound > 0) {
          std::vector<uint8_t> small(static_cast<size_t>(bound) - 1);
          EXPECT_EQ(CompressInto(codec, input, level, small).status().kind(), ErrorKind::kInvalidArgument)
              << CodecName(codec);
        }
      }
    }
  }
  for (Codec codec : {Codec::kGzip, Codec::kZstd, Codec::kBrotli, Codec::kLz4Hadoop}) {
    EXPECT_EQ(MaxCompressedSize(codec, 100), -1) << CodecName(codec);
    std::vector<uint8_t> buffer(1000);
    EXPECT_EQ(CompressInto(codec, random, 0, buffer).status().kind(), ErrorKind::kNotSupported);
  }
}

TEST(Crc32, ContinuesAcrossPieces) {
  std::vector<uint8_t> bytes(1000);
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<uint8_t>(i * 131);
  const std::span<const uint8_t> all(bytes);
  for (size_t cut : {size_t{0}, size_t{1}, size_t{500}, size_t{1000}}) {
    EXPECT_EQ(Crc32(all.subspan(cut), Crc32(all.first(cut))), Crc32(all)) << cut;
  }
}

}  // namespace
}  // namespace floe
