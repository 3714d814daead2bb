// PrimaryKeyIndex at N keys (FLOE_BENCH_KEYS, default 10M; dense integer
// ids as a CDA table's, seqvals increasing with the id, 2,000,000 rows per
// data file): saving them (a full load in commits of 8M keys, merged as the
// background does), 10,000-change
// commits into it (3,000 updates and 500 deletes of random existing keys,
// 6,500 new keys: the lookups, then the save of the commit's run), a load of
// the index from its files (what a `floe run --once` pays), and merging the
// runs into a new base. Counters: disk_bytes_per_key (runs + manifest),
// memory_bytes_per_key (fences, filters, file tables), runs; items/s are
// keys per second. The index lives in $TMPDIR/floe-key-index-bench.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "ingest/merge/key_index.h"
#include "unit/ingest_merge/key_index_test_util.h"

namespace {

using floe::ingest::KeyId;
using floe::ingest::KeyIndexDelta;
using floe::ingest::OrderValue;
using floe::ingest::PrimaryKeyIndex;

int64_t Keys() {
  static const int64_t keys = [] {
    const char* env = std::getenv("FLOE_BENCH_KEYS");
    return env != nullptr ? std::atoll(env) : int64_t{10'000'000};
  }();
  return keys;
}

constexpr int64_t kRowsPerFile = 2'000'000;
constexpr int64_t kBatchKeys = 8'000'000;

std::string Dir() {
  return (std::filesystem::temp_directory_path() / "floe-key-index-bench").string();
}

std::string FileOf(int64_t row) {
  return "s3://bucket/warehouse/db/table/data/00000-" + std::to_string(row / kRowsPerFile) +
         "-3f1e6a0c-9d1b-4a55-8e2f-0b7c2d4e6f81.parquet";
}

OrderValue Order(uint64_t v) {
  return floe::ingest::OrderValueFromHalves(0, v);
}

floe::iceberg::TableMetadata Table(int64_t snapshots) {
  return floe::ingest::key_index_testing::TableWithSnapshotsUpTo(snapshots, "overwrite");
}

const floe::ingest::KeyIndexSpec& Spec() {
  static const floe::ingest::KeyIndexSpec spec = floe::ingest::key_index_testing::IdSpec();
  return spec;
}

// The index of the full load (snapshot 1), kept for the benchmarks after the first.
struct Bench {
  std::shared_ptr<floe::FileIO> io = floe::MakeLocalFileIO();
  std::unique_ptr<PrimaryKeyIndex> index;
  int64_t snapshot = 0;
  int64_t next_key = 1;
  uint64_t next_order = 1;
};

Bench& State() {
  static Bench bench;
  return bench;
}

double DiskBytes() {
  double bytes = 0;
  for (const auto& entry : std::filesystem::directory_iterator(Dir()))
    bytes += static_cast<double>(entry.file_size());
  return bytes;
}

void BM_FullLoadAsOneRun(benchmark::State& state) {
  Bench& bench = State();
  for (auto _ : state) {
    std::filesystem::remove_all(Dir());
    bench.index = std::make_unique<PrimaryKeyIndex>(bench.io, Dir());
    // Batches of at most 8M keys, as a memory budget of 512 MiB cuts a full load.
    for (int64_t first = 0; first < Keys(); first += kBatchKeys) {
      KeyIndexDelta delta;
      const int64_t end = std::min(Keys(), first + kBatchKeys);
      delta.Reserve(static_cast<size_t>(end - first));
      for (int64_t row = first; row < end; ++row) {
        delta.PutLive(KeyId{0, static_cast<uint64_t>(bench.next_key++)}, FileOf(row), row % kRowsPerFile,
                      Order(bench.next_order++));
      }
      if (auto s = bench.index->Save(std::move(delta), ++bench.snapshot); !s.ok())
        state.SkipWithError(s.ToString().c_str());
      bench.index->AdoptFinishedMerge();
    }
    bench.index->FinishMerges(true);
  }
  state.counters["runs"] = static_cast<double>(bench.index->run_count());
  state.SetItemsProcessed(state.iterations() * Keys());
  state.counters["disk_bytes_per_key"] = DiskBytes() / static_cast<double>(Keys());
  state.counters["memory_bytes_per_key"] =
      static_cast<double>(bench.index->MemoryBytes()) / static_cast<double>(Keys());
}
BENCHMARK(BM_FullLoadAsOneRun)->Unit(benchmark::kMillisecond)->Iterations(1);

// One commit's work on the index, as TableIngestor does it: adopt a finished
// merge, look the batch's keys up, save the commit's run.
void BM_Commit10kChanges(benchmark::State& state) {
  Bench& bench = State();
  std::mt19937_64 random(7);
  double lookup_ms = 0;
  double save_ms = 0;
  for (auto _ : state) {
    bench.index->AdoptFinishedMerge();
    std::vector<KeyId> keys;
    for (int i = 0; i < 3500; ++i)
      keys.push_back(KeyId{0, 1 + random() % static_cast<uint64_t>(bench.next_key - 1)});
    for (int i = 0; i < 6500; ++i) keys.push_back(KeyId{0, static_cast<uint64_t>(bench.next_key + i)});
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<std::optional<PrimaryKeyIndex::Entry>> found;
    if (auto s = bench.index->FindMany(keys, &found); !s.ok()) state.SkipWithError(s.ToString().c_str());
    const auto t1 = std::chrono::steady_clock::now();
    KeyIndexDelta delta;
    for (size_t i = 0; i < keys.size(); ++i) {
      if (i >= 3000 && i < 3500) {
        delta.PutTombstone(keys[i], Order(bench.next_order++), 1'700'000'000'000);
      } else {
        delta.PutLive(
            keys[i],
            "s3://bucket/warehouse/db/table/data/commit-" + std::to_string(bench.snapshot) + ".parquet",
            static_cast<int64_t>(i), Order(bench.next_order++));
      }
    }
    bench.next_key += 6500;
    if (auto s = bench.index->Save(std::move(delta), ++bench.snapshot); !s.ok())
      state.SkipWithError(s.ToString().c_str());
    const auto t2 = std::chrono::steady_clock::now();
    lookup_ms += std::chrono::duration<double, std::milli>(t1 - t0).count();
    save_ms += std::chrono::duration<double, std::milli>(t2 - t1).count();
  }
  state.SetItemsProcessed(state.iterations() * 10000);
  state.counters["lookup_ms"] = lookup_ms / static_cast<double>(state.iterations());
  state.counters["save_ms"] = save_ms / static_cast<double>(state.iterations());
  state.counters["runs"] = static_cast<double>(bench.index->run_count());
  state.counters["disk_bytes_per_key"] = DiskBytes() / static_cast<double>(bench.next_key - 1);
}
BENCHMARK(BM_Commit10kChanges)->Unit(benchmark::kMillisecond)->Iterations(40);

void BM_LoadFromFiles(benchmark::State& state) {
  Bench& bench = State();
  bench.index->FinishMerges(false);
  for (auto _ : state) {
    auto loaded = PrimaryKeyIndex::Load(bench.io, Dir(), Table(bench.snapshot), *bench.io, Spec());
    if (!loaded.ok()) state.SkipWithError(loaded.status().ToString().c_str());
    benchmark::DoNotOptimize(loaded);
  }
  state.counters["memory_bytes_per_key"] =
      static_cast<double>(bench.index->MemoryBytes()) / static_cast<double>(bench.next_key - 1);
}
BENCHMARK(BM_LoadFromFiles)->Unit(benchmark::kMillisecond)->Iterations(3);

// Every run merged into one new base (what the background does when the
// newer runs reach a quarter of the base).
void BM_MergeIntoBase(benchmark::State& state) {
  Bench& bench = State();
  for (auto _ : state) {
    KeyIndexDelta delta;  // a quarter of the base: the base merge is due
    const int64_t quarter = (bench.next_key - 1) / 4;
    for (int64_t i = 0; i < quarter; ++i) {
      delta.PutLive(KeyId{0, static_cast<uint64_t>(1 + i * 4)}, "s3://bucket/new.parquet", i,
                    Order(bench.next_order++));
    }
    if (auto s = bench.index->Save(std::move(delta), ++bench.snapshot); !s.ok())
      state.SkipWithError(s.ToString().c_str());
    const auto t0 = std::chrono::steady_clock::now();
    bench.index->FinishMerges(true);
    state.counters["merge_ms"] =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }
  state.counters["runs"] = static_cast<double>(bench.index->run_count());
  state.counters["disk_bytes_per_key"] = DiskBytes() / static_cast<double>(bench.next_key - 1);
  bench.index.reset();
  std::filesystem::remove_all(Dir());
}
BENCHMARK(BM_MergeIntoBase)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
