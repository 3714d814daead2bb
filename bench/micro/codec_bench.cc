// Throughput of the block codecs (Parquet pages, Avro blocks) and of the
// hashes floe computes per row or per page: MurmurHash3-128 of encoded keys
// (the primary-key index) and CRC-32 (page checksums). Bytes/s counts the
// uncompressed size on both sides, so compress and decompress figures are
// comparable. Inputs are page-like and fixed-seeded: a run of CDA-shaped
// values (ids, decimals, timestamps, short dictionary strings, free text),
// which compress 2-4x as real pages do, not random bytes or zeros.
#include <benchmark/benchmark.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "compression/codec.h"
#include "ingest/merge/murmur3_128.h"

namespace {

constexpr size_t kPageBytes = 1 << 20;

std::vector<uint8_t> PageLikeBytes() {
  static const char* const kWords[] = {"claim",     "open",   "closed", "pending", "auto",     "property",
                                       "liability", "review", "paid",   "reserve", "adjuster", "Seattle"};
  std::mt19937_64 rng(42);
  std::vector<uint8_t> out;
  out.reserve(kPageBytes + 256);
  int64_t id = 1'000'000;
  while (out.size() < kPageBytes) {
    id += 1 + static_cast<int64_t>(rng() % 3);
    const int64_t cents = static_cast<int64_t>(rng() % 10'000'000);
    const int64_t micros = 1'790'000'000'000'000 + static_cast<int64_t>(rng() % 86'400'000'000);
    for (int64_t v : {id, cents, micros}) {
      uint8_t bytes[8];
      std::memcpy(bytes, &v, 8);
      out.insert(out.end(), bytes, bytes + 8);
    }
    const int words = 1 + static_cast<int>(rng() % 6);
    for (int w = 0; w < words; ++w) {
      const char* word = kWords[rng() % (sizeof(kWords) / sizeof(kWords[0]))];
      out.insert(out.end(), word, word + std::strlen(word));
      out.push_back(' ');
    }
  }
  out.resize(kPageBytes);
  return out;
}

const std::vector<uint8_t>& Page() {
  static const std::vector<uint8_t> page = PageLikeBytes();
  return page;
}

void Compress(benchmark::State& state, floe::Codec codec, int level) {
  std::vector<uint8_t> out;
  for (auto _ : state) {
    floe::Status status = floe::Compress(codec, Page(), level, &out);
    if (!status.ok()) state.SkipWithError(status.ToString().c_str());
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(kPageBytes));
  state.counters["ratio"] = static_cast<double>(kPageBytes) / static_cast<double>(out.size());
}

// Decompresses the page compressed with `codec` at `level` once per
// iteration through `decode` (into a vector, or into a sized buffer).
template <typename Decode>
void DecompressWith(benchmark::State& state, floe::Codec codec, int level, Decode decode) {
  std::vector<uint8_t> compressed;
  floe::Status status = floe::Compress(codec, Page(), level, &compressed);
  if (!status.ok()) {
    state.SkipWithError(status.ToString().c_str());
    return;
  }
  for (auto _ : state) {
    status = decode(compressed);
    if (!status.ok()) state.SkipWithError(status.ToString().c_str());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(kPageBytes));
}

void Decompress(benchmark::State& state, floe::Codec codec, int level) {
  std::vector<uint8_t> out;
  DecompressWith(state, codec, level, [&](const std::vector<uint8_t>& compressed) {
    floe::Status status = floe::Decompress(codec, compressed, static_cast<int64_t>(kPageBytes), &out);
    benchmark::DoNotOptimize(out.data());
    return status;
  });
}

// What the Parquet reader calls for a page whose size it knows: straight into
// its reused page buffer (snappy, lz4_raw, and zstd when the frame declares
// its size, as floe's and most writers' frames do).
void DecompressInto(benchmark::State& state, floe::Codec codec, int level) {
  std::vector<uint8_t> out(kPageBytes);
  DecompressWith(state, codec, level, [&](const std::vector<uint8_t>& compressed) {
    floe::Status status = floe::DecompressInto(codec, compressed, out);
    benchmark::DoNotOptimize(out.data());
    return status;
  });
}

BENCHMARK_CAPTURE(Compress, snappy, floe::Codec::kSnappy, 0);
BENCHMARK_CAPTURE(Decompress, snappy, floe::Codec::kSnappy, 0);
BENCHMARK_CAPTURE(Compress, zstd_1, floe::Codec::kZstd, 1);
BENCHMARK_CAPTURE(Compress, zstd_3, floe::Codec::kZstd, 3);
BENCHMARK_CAPTURE(Decompress, zstd_3, floe::Codec::kZstd, 3);
BENCHMARK_CAPTURE(DecompressInto, zstd_3, floe::Codec::kZstd, 3);
BENCHMARK_CAPTURE(DecompressInto, snappy, floe::Codec::kSnappy, 0);
BENCHMARK_CAPTURE(DecompressInto, lz4_raw, floe::Codec::kLz4Raw, 0);
BENCHMARK_CAPTURE(Compress, lz4_raw, floe::Codec::kLz4Raw, 0);
BENCHMARK_CAPTURE(Decompress, lz4_raw, floe::Codec::kLz4Raw, 0);
BENCHMARK_CAPTURE(Compress, gzip_6, floe::Codec::kGzip, 6);
BENCHMARK_CAPTURE(Decompress, gzip_6, floe::Codec::kGzip, 6);
BENCHMARK_CAPTURE(Compress, brotli_4, floe::Codec::kBrotli, 4);
BENCHMARK_CAPTURE(Decompress, brotli_4, floe::Codec::kBrotli, 4);

// Keys as the key encoder lays them out: 8-byte ids (the common CDA case is
// an int64 id, which the index keeps exactly; composite and string keys are
// hashed) and 24-byte composite keys.
void Murmur3Keys(benchmark::State& state) {
  const size_t key_bytes = static_cast<size_t>(state.range(0));
  const std::vector<uint8_t>& page = Page();
  const size_t keys = page.size() / key_bytes;
  uint64_t sink = 0;
  for (auto _ : state) {
    for (size_t k = 0; k < keys; ++k) {
      floe::ingest::Hash128 h = floe::ingest::Murmur3x64_128(
          std::string_view(reinterpret_cast<const char*>(page.data()) + k * key_bytes, key_bytes));
      sink += h.h1 ^ h.h2;
    }
  }
  benchmark::DoNotOptimize(sink);
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(keys));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(keys * key_bytes));
}
BENCHMARK(Murmur3Keys)->Arg(8)->Arg(24)->Arg(64);

void Crc32Page(benchmark::State& state) {
  uint32_t sink = 0;
  for (auto _ : state) sink ^= floe::Crc32(Page());
  benchmark::DoNotOptimize(sink);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(kPageBytes));
}
BENCHMARK(Crc32Page);

}  // namespace

BENCHMARK_MAIN();
