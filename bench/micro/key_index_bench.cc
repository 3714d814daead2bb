// PrimaryKeyIndex with 10M exact int64 keys: inserting them from empty (the
// rebuild / first load path, including every growth step), the same after
// one Reserve (a batch's inserts), 10M hashed (128-bit) keys, looking up
// keys that are present and absent, overwriting (an upsert batch), and
// saving and loading the index file. Counters: bytes_per_key =
// MemoryBytes()/live_count() after the inserts; items/s are keys per second.
// Keys are random 64-bit values (fixed seed) so the hash table sees no
// convenient order.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "ingest/merge/key_index.h"

namespace {

using floe::ingest::KeyId;
using floe::ingest::OrderValue;
using floe::ingest::PrimaryKeyIndex;

constexpr int64_t kKeys = 10'000'000;
constexpr int kFiles = 100;

const std::vector<uint64_t>& Keys() {
  static const std::vector<uint64_t> keys = [] {
    std::mt19937_64 random(42);
    std::vector<uint64_t> out(kKeys);
    for (auto& k : out) k = random();
    return out;
  }();
  return keys;
}

const std::vector<std::string>& Files() {
  static const std::vector<std::string> files = [] {
    std::vector<std::string> out;
    for (int f = 0; f < kFiles; ++f) {
      out.push_back("s3://bucket/warehouse/db/table/data/00000-" + std::to_string(f) +
                    "-3f1e6a0c-9d1b-4a55-8e2f-0b7c2d4e6f81.parquet");
    }
    return out;
  }();
  return files;
}

OrderValue Order(uint64_t v) {
  OrderValue o;
  for (int i = 0; i < 8; ++i) o.bytes[15 - i] = static_cast<uint8_t>(v >> (8 * i));
  return o;
}

// Rows arrive file by file, as a rebuild reads them.
void Fill(PrimaryKeyIndex& index) {
  const auto& keys = Keys();
  const auto& files = Files();
  const int64_t per_file = kKeys / kFiles;
  for (int64_t i = 0; i < kKeys; ++i) {
    index.PutLive(KeyId{0, keys[i]}, files[i / per_file], i % per_file, Order(i));
  }
}

PrimaryKeyIndex& Filled() {
  static PrimaryKeyIndex index = [] {
    PrimaryKeyIndex i;
    Fill(i);
    return i;
  }();
  return index;
}

void BM_Insert10M(benchmark::State& state) {
  Keys();
  Files();
  double bytes_per_key = 0;
  for (auto _ : state) {
    PrimaryKeyIndex index;
    Fill(index);
    bytes_per_key = static_cast<double>(index.MemoryBytes()) / static_cast<double>(index.live_count());
    benchmark::DoNotOptimize(index.live_count());
  }
  state.SetItemsProcessed(state.iterations() * kKeys);
  state.counters["bytes_per_key"] = bytes_per_key;
}
BENCHMARK(BM_Insert10M)->Unit(benchmark::kMillisecond)->Iterations(1);

// A batch of 10M new keys: the ingestor reserves before its inserts.
void BM_InsertReserved10M(benchmark::State& state) {
  Keys();
  Files();
  double bytes_per_key = 0;
  for (auto _ : state) {
    PrimaryKeyIndex index;
    index.Reserve(kKeys);
    Fill(index);
    bytes_per_key = static_cast<double>(index.MemoryBytes()) / static_cast<double>(index.live_count());
    benchmark::DoNotOptimize(index.live_count());
  }
  state.SetItemsProcessed(state.iterations() * kKeys);
  state.counters["bytes_per_key"] = bytes_per_key;
}
BENCHMARK(BM_InsertReserved10M)->Unit(benchmark::kMillisecond)->Iterations(1);

// Hashed keys (strings, several columns): 128-bit KeyIds.
void BM_InsertHashed10M(benchmark::State& state) {
  const auto& keys = Keys();
  const auto& files = Files();
  const int64_t per_file = kKeys / kFiles;
  double bytes_per_key = 0;
  for (auto _ : state) {
    PrimaryKeyIndex index;
    for (int64_t i = 0; i < kKeys; ++i) {
      const uint64_t k = keys[static_cast<size_t>(i)];
      index.PutLive(KeyId{k | 1, k * 0x9E3779B97F4A7C15ULL}, files[i / per_file], i % per_file, Order(i));
    }
    bytes_per_key = static_cast<double>(index.MemoryBytes()) / static_cast<double>(index.live_count());
    benchmark::DoNotOptimize(index.live_count());
  }
  state.SetItemsProcessed(state.iterations() * kKeys);
  state.counters["bytes_per_key"] = bytes_per_key;
}
BENCHMARK(BM_InsertHashed10M)->Unit(benchmark::kMillisecond)->Iterations(1);

void BM_LookupHit10M(benchmark::State& state) {
  PrimaryKeyIndex& index = Filled();
  const auto& keys = Keys();
  std::vector<uint64_t> shuffled(keys);
  std::shuffle(shuffled.begin(), shuffled.end(), std::mt19937_64(1));
  for (auto _ : state) {
    int64_t found = 0;
    for (uint64_t k : shuffled) found += index.Find(KeyId{0, k}).has_value();
    benchmark::DoNotOptimize(found);
  }
  state.SetItemsProcessed(state.iterations() * kKeys);
  state.counters["bytes_per_key"] =
      static_cast<double>(index.MemoryBytes()) / static_cast<double>(index.live_count());
}
BENCHMARK(BM_LookupHit10M)->Unit(benchmark::kMillisecond)->Iterations(1);

void BM_LookupMiss10M(benchmark::State& state) {
  PrimaryKeyIndex& index = Filled();
  std::mt19937_64 random(99);
  std::vector<uint64_t> absent(kKeys);
  for (auto& k : absent) k = random();
  for (auto _ : state) {
    int64_t found = 0;
    for (uint64_t k : absent) found += index.Find(KeyId{0, k}).has_value();
    benchmark::DoNotOptimize(found);
  }
  state.SetItemsProcessed(state.iterations() * kKeys);
}
BENCHMARK(BM_LookupMiss10M)->Unit(benchmark::kMillisecond)->Iterations(1);

// An upsert batch: 1M existing keys move to a new file.
void BM_Overwrite1M(benchmark::State& state) {
  PrimaryKeyIndex& index = Filled();
  const auto& keys = Keys();
  for (auto _ : state) {
    for (int64_t i = 0; i < 1'000'000; ++i) {
      index.PutLive(KeyId{0, keys[i * 10]}, "s3://bucket/new.parquet", i, Order(kKeys + i));
    }
  }
  state.SetItemsProcessed(state.iterations() * 1'000'000);
}
BENCHMARK(BM_Overwrite1M)->Unit(benchmark::kMillisecond)->Iterations(1);

void BM_SaveLoad10M(benchmark::State& state) {
  PrimaryKeyIndex& index = Filled();
  auto io = floe::MakeLocalFileIO();
  const std::string dir = (std::filesystem::temp_directory_path() / "floe-key-index-bench").string();
  floe::iceberg::TableMetadata table;
  floe::iceberg::Schema schema;
  schema.fields.push_back(floe::iceberg::MakeNestedField(
      1, "id", floe::iceberg::PrimitiveType(floe::iceberg::TypeKind::kLong), true));
  schema.fields.push_back(floe::iceberg::MakeNestedField(
      2, "seq", floe::iceberg::PrimitiveType(floe::iceberg::TypeKind::kString)));
  table.schemas.push_back(schema);
  floe::iceberg::Snapshot snapshot;
  snapshot.snapshot_id = 1;
  table.snapshots.push_back(snapshot);
  table.current_snapshot_id = 1;
  floe::ingest::KeyIndexSpec spec{{"id"}, "seq", floe::ingest::OrderingKind::kPaddedHex};
  double save_ms = 0;
  double load_ms = 0;
  double file_bytes = 0;
  for (auto _ : state) {
    auto t0 = std::chrono::steady_clock::now();
    if (auto s = index.Save(*io, dir, 1); !s.ok()) state.SkipWithError(s.ToString().c_str());
    auto t1 = std::chrono::steady_clock::now();
    auto loaded = PrimaryKeyIndex::Load(*io, dir, table, *io, spec);
    auto t2 = std::chrono::steady_clock::now();
    if (!loaded.ok()) state.SkipWithError(loaded.status().ToString().c_str());
    save_ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
    load_ms = std::chrono::duration<double, std::milli>(t2 - t1).count();
    file_bytes = static_cast<double>(std::filesystem::file_size(PrimaryKeyIndex::FilePath(dir, 1)));
  }
  std::filesystem::remove_all(dir);
  state.counters["save_ms"] = save_ms;
  state.counters["load_ms"] = load_ms;
  state.counters["file_bytes_per_key"] = file_bytes / kKeys;
}
BENCHMARK(BM_SaveLoad10M)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
