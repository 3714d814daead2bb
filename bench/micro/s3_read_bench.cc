// Ranged-read throughput of S3FileIO against a local s3rver, beside the local
// FileIO on the same bytes (MB/s as bytes_per_second). s3rver is started by the
// benchmark (node + tests/node_modules/s3rver); without them only the local
// benchmarks run. s3rver is a single-threaded JS server, so its numbers show
// floe's client overhead and parallel-range gains, not what AWS S3 delivers.
#include <benchmark/benchmark.h>

#include <filesystem>
#include <memory>
#include <random>

#include "io/file_io.h"
#include "io/s3/s3_file_io.h"

namespace {
std::filesystem::path BenchSourceDir() {
  return std::filesystem::path(__FILE__).parent_path().parent_path().parent_path();
}
}  // namespace
#define FLOE_SOURCE_DIR BenchSourceDir()
#include "../../tests/unit/s3/s3_test_servers.h"

namespace {

constexpr int64_t kObjectSize = 64 << 20;

struct Fixture {
  std::filesystem::path dir;
  floe::testing::NodeProcess server;
  std::shared_ptr<floe::FileIO> local;
  std::shared_ptr<floe::s3::S3FileIO> s3;
  std::string local_path;
  std::string s3_path = "s3://bench/object.bin";
  std::string s3_error;

  Fixture() {
    dir = std::filesystem::temp_directory_path() / ("floe-s3-bench-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir / "data");
    std::vector<uint8_t> bytes(kObjectSize);
    std::mt19937_64 rng(1);
    for (auto& b : bytes) b = static_cast<uint8_t>(rng());
    local = floe::MakeLocalFileIO();
    local_path = (dir / "object.bin").string();
    if (!local->WriteAll(local_path, bytes).ok()) std::abort();

    s3_error = floe::testing::S3ToolsMissingReason();
    if (!s3_error.empty()) return;
    auto port =
        server.Start({"--openssl-legacy-provider", (BenchSourceDir() / "tests/tools/s3rver.mjs").string(),
                      (dir / "data").string(), "bench"},
                     (dir / "s3rver.log").string());
    if (!port) {
      s3_error = server.error();
      return;
    }
    floe::s3::S3Options options;
    options.endpoint = "http://127.0.0.1:" + std::to_string(*port);
    options.access_key_id = "S3RVER";
    options.secret_access_key = "S3RVER";
    auto io = floe::s3::MakeS3FileIO(options);
    if (!io.ok() || !(*io)->WriteAll(s3_path, bytes).ok()) {
      s3_error = "cannot upload the benchmark object";
      return;
    }
    s3 = *io;
  }
  ~Fixture() {
    server.Stop();
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
};

Fixture& Shared() {
  static Fixture fixture;
  return fixture;
}

void RangedReads(benchmark::State& state, floe::FileIO& io, const std::string& path) {
  const int64_t length = state.range(0);
  auto file = io.OpenRead(path);
  if (!file.ok()) {
    state.SkipWithError(file.status().ToString().c_str());
    return;
  }
  std::vector<uint8_t> buffer(static_cast<size_t>(length));
  std::mt19937_64 rng(2);
  std::uniform_int_distribution<int64_t> offsets(0, kObjectSize - length);
  for (auto _ : state) {
    floe::Status st = (*file)->ReadAt(offsets(rng), length, buffer.data());
    if (!st.ok()) {
      state.SkipWithError(st.ToString().c_str());
      return;
    }
    benchmark::DoNotOptimize(buffer.data());
  }
  state.SetBytesProcessed(state.iterations() * length);
}

void BM_LocalRangedRead(benchmark::State& state) {
  RangedReads(state, *Shared().local, Shared().local_path);
}

void BM_S3RangedRead(benchmark::State& state) {
  Fixture& fixture = Shared();
  if (!fixture.s3) {
    state.SkipWithError(("s3rver unavailable: " + fixture.s3_error).c_str());
    return;
  }
  RangedReads(state, *fixture.s3, fixture.s3_path);
}

// 64 KiB (page-sized), 1 MiB (column chunk), 32 MiB (split into parallel ranges).
BENCHMARK(BM_LocalRangedRead)->Arg(64 << 10)->Arg(1 << 20)->Arg(32 << 20)->UseRealTime();
BENCHMARK(BM_S3RangedRead)->Arg(64 << 10)->Arg(1 << 20)->Arg(32 << 20)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
