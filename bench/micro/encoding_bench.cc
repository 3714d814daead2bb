// Throughput of the Parquet value decoders and encoders. Bytes/s counts the
// decoded (in-memory) size of the values, so decoders are comparable to
// memcpy speed; inputs use fixed seeds.
#include <benchmark/benchmark.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "formats/parquet/encoding/byte_stream_split.h"
#include "formats/parquet/encoding/delta_binary_packed.h"
#include "formats/parquet/encoding/delta_byte_array.h"
#include "formats/parquet/encoding/plain.h"
#include "formats/parquet/encoding/rle_bit_packed.h"

namespace {

using namespace floe::parquet;

constexpr int64_t kValues = 1 << 16;

// Dictionary-index-like data: mostly random literals, a few repeats.
std::vector<uint32_t> LevelValues(int bit_width) {
  std::mt19937_64 rng(bit_width);
  const uint32_t mask = bit_width == 32 ? ~0u : (1u << bit_width) - 1;
  std::vector<uint32_t> values;
  while (static_cast<int64_t>(values.size()) < kValues) {
    const uint32_t v = static_cast<uint32_t>(rng()) & mask;
    const size_t repeat = rng() % 16 == 0 ? 20 : 1;
    for (size_t i = 0; i < repeat && static_cast<int64_t>(values.size()) < kValues; ++i) values.push_back(v);
  }
  return values;
}

void BM_RleDecode(benchmark::State& state) {
  const int bit_width = static_cast<int>(state.range(0));
  RleBitPackedEncoder encoder(bit_width);
  for (uint32_t v : LevelValues(bit_width)) encoder.Put(v);
  const std::vector<uint8_t> encoded = encoder.Finish();
  std::vector<uint32_t> out(kValues);
  for (auto _ : state) {
    RleBitPackedDecoder decoder(encoded.data(), encoded.size(), bit_width);
    // Readers decode in batches; 1024 exercises the batch boundaries.
    for (int64_t done = 0; done < kValues; done += 1024) {
      if (!decoder.Decode(out.data() + done, 1024).ok()) state.SkipWithError("decode failed");
    }
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(state.iterations() * kValues * static_cast<int64_t>(sizeof(uint32_t)));
}
BENCHMARK(BM_RleDecode)->Arg(1)->Arg(8)->Arg(17);

void BM_RleEncode(benchmark::State& state) {
  const int bit_width = static_cast<int>(state.range(0));
  const std::vector<uint32_t> values = LevelValues(bit_width);
  for (auto _ : state) {
    RleBitPackedEncoder encoder(bit_width);
    for (uint32_t v : values) encoder.Put(v);
    benchmark::DoNotOptimize(encoder.Finish());
  }
  state.SetBytesProcessed(state.iterations() * kValues * static_cast<int64_t>(sizeof(uint32_t)));
}
BENCHMARK(BM_RleEncode)->Arg(1)->Arg(8)->Arg(17);

// Timestamps: increasing with jitter, as event times are.
std::vector<int64_t> TimestampValues() {
  std::mt19937_64 rng(42);
  std::vector<int64_t> values(kValues);
  int64_t t = 1700000000000000;
  for (auto& v : values) {
    t += static_cast<int64_t>(rng() % 5000);
    v = t;
  }
  return values;
}

void BM_DeltaBinaryPackedDecodeInt64(benchmark::State& state) {
  DeltaBinaryPackedEncoder<int64_t> encoder;
  const std::vector<int64_t> values = TimestampValues();
  encoder.Put(values.data(), kValues);
  const std::vector<uint8_t> encoded = encoder.Finish();
  std::vector<int64_t> out(kValues);
  for (auto _ : state) {
    DeltaBinaryPackedDecoder<int64_t> decoder;
    if (!decoder.Init(encoded.data(), encoded.size()).ok() || !decoder.Decode(out.data(), kValues).ok()) {
      state.SkipWithError("decode failed");
    }
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(state.iterations() * kValues * static_cast<int64_t>(sizeof(int64_t)));
}
BENCHMARK(BM_DeltaBinaryPackedDecodeInt64);

void BM_DeltaBinaryPackedEncodeInt64(benchmark::State& state) {
  const std::vector<int64_t> values = TimestampValues();
  for (auto _ : state) {
    DeltaBinaryPackedEncoder<int64_t> encoder;
    encoder.Put(values.data(), kValues);
    benchmark::DoNotOptimize(encoder.Finish());
  }
  state.SetBytesProcessed(state.iterations() * kValues * static_cast<int64_t>(sizeof(int64_t)));
}
BENCHMARK(BM_DeltaBinaryPackedEncodeInt64);

std::vector<std::string> UrlValues() {
  std::mt19937_64 rng(7);
  std::vector<std::string> values(kValues);
  for (size_t i = 0; i < values.size(); ++i) {
    values[i] = "https://example.com/items/" + std::to_string(i * 13) +
                "/view?session=" + std::to_string(rng() % 100000);
  }
  return values;
}

int64_t TotalBytes(const std::vector<std::string>& values) {
  int64_t total = 0;
  for (const auto& v : values) total += static_cast<int64_t>(v.size());
  return total;
}

template <bool kIncremental>
void BM_DeltaByteArrayDecode(benchmark::State& state) {
  const std::vector<std::string> values = UrlValues();
  const std::vector<std::string_view> views(values.begin(), values.end());
  const std::vector<uint8_t> encoded =
      kIncremental ? EncodeDeltaByteArray(views) : EncodeDeltaLengthByteArray(views);
  std::vector<int64_t> offsets;
  std::vector<uint8_t> data;
  for (auto _ : state) {
    offsets.clear();
    data.clear();
    const floe::Status status =
        kIncremental ? DecodeDeltaByteArray(encoded.data(), encoded.size(), kValues, &offsets, &data)
                     : DecodeDeltaLengthByteArray(encoded.data(), encoded.size(), kValues, &offsets, &data);
    if (!status.ok()) state.SkipWithError("decode failed");
    benchmark::DoNotOptimize(data.data());
  }
  state.SetBytesProcessed(state.iterations() * TotalBytes(values));
}
BENCHMARK(BM_DeltaByteArrayDecode<false>)->Name("BM_DeltaLengthByteArrayDecode");
BENCHMARK(BM_DeltaByteArrayDecode<true>)->Name("BM_DeltaByteArrayDecode");

template <bool kIncremental>
void BM_DeltaByteArrayEncode(benchmark::State& state) {
  const std::vector<std::string> values = UrlValues();
  const std::vector<std::string_view> views(values.begin(), values.end());
  for (auto _ : state) {
    benchmark::DoNotOptimize(kIncremental ? EncodeDeltaByteArray(views) : EncodeDeltaLengthByteArray(views));
  }
  state.SetBytesProcessed(state.iterations() * TotalBytes(values));
}
BENCHMARK(BM_DeltaByteArrayEncode<false>)->Name("BM_DeltaLengthByteArrayEncode");
BENCHMARK(BM_DeltaByteArrayEncode<true>)->Name("BM_DeltaByteArrayEncode");

std::vector<uint8_t> DoubleBytes() {
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> dist(-1000.0, 1000.0);
  std::vector<uint8_t> bytes(kValues * sizeof(double));
  for (int64_t i = 0; i < kValues; ++i) {
    const double d = dist(rng);
    std::memcpy(bytes.data() + i * sizeof(double), &d, sizeof(double));
  }
  return bytes;
}

void BM_ByteStreamSplitDecodeDouble(benchmark::State& state) {
  const std::vector<uint8_t> encoded = EncodeByteStreamSplit(DoubleBytes().data(), 8, kValues);
  std::vector<uint8_t> out(encoded.size());
  for (auto _ : state) {
    if (!DecodeByteStreamSplit(encoded.data(), encoded.size(), 8, kValues, out.data()).ok()) {
      state.SkipWithError("decode failed");
    }
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(encoded.size()));
}
BENCHMARK(BM_ByteStreamSplitDecodeDouble);

void BM_ByteStreamSplitEncodeDouble(benchmark::State& state) {
  const std::vector<uint8_t> values = DoubleBytes();
  for (auto _ : state) benchmark::DoNotOptimize(EncodeByteStreamSplit(values.data(), 8, kValues));
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(values.size()));
}
BENCHMARK(BM_ByteStreamSplitEncodeDouble);

void BM_PlainByteArrayDecode(benchmark::State& state) {
  const std::vector<std::string> values = UrlValues();
  std::vector<uint8_t> encoded;
  for (const auto& v : values) EncodePlainByteArray(v, &encoded);
  std::vector<int64_t> offsets;
  std::vector<uint8_t> data;
  for (auto _ : state) {
    offsets.clear();
    data.clear();
    size_t consumed = 0;
    if (!DecodePlainByteArray(encoded.data(), encoded.size(), kValues, &offsets, &data, &consumed).ok()) {
      state.SkipWithError("decode failed");
    }
    benchmark::DoNotOptimize(data.data());
  }
  state.SetBytesProcessed(state.iterations() * TotalBytes(values));
}
BENCHMARK(BM_PlainByteArrayDecode);

void BM_PlainBooleanDecode(benchmark::State& state) {
  std::vector<uint8_t> values(kValues);
  std::mt19937_64 rng(1);
  for (auto& v : values) v = rng() & 1;
  std::vector<uint8_t> encoded;
  EncodePlainBooleans(values.data(), kValues, &encoded);
  std::vector<uint8_t> out(kValues);
  for (auto _ : state) {
    if (!DecodePlainBooleans(encoded.data(), encoded.size(), kValues, out.data()).ok()) {
      state.SkipWithError("decode failed");
    }
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(state.iterations() * kValues);
}
BENCHMARK(BM_PlainBooleanDecode);

}  // namespace

BENCHMARK_MAIN();
