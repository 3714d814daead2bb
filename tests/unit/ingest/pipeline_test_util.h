// The pipeline tests' fixture: a tiny CDA export in a temp dir (part files,
// manifest.json), a filesystem catalog and readers of the resulting tables;
// and helpers to drive the continuous loop (a watched log, a stopper thread,
// the trace's lines).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <thread>
#include <utility>

#include "catalog/filesystem/filesystem_catalog.h"
#include "catalog/open/open_catalog.h"
#include "catalog/table/catalog.h"
#include "columnar/column.h"
#include "formats/parquet/file_writer.h"
#include "iceberg/scan/table_scan.h"
#include "iceberg/transaction/table.h"
#include "ingest/pipeline.h"
#include "ingest/source.h"
#include "io/fault_injecting_file_io.h"
#include "parquet_units.h"
#include "test_util.h"

namespace floe::ingest::pipeline_testing {

namespace fs = std::filesystem;

struct Change {
  int64_t id;
  std::string seq;  // gwcbi___seqval_hex, not padded
  int32_t op;       // 0/2 insert, 4 update, 1 delete
  std::string name;
};

class PipelineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    export_dir_ = (dir_.path() / "export").string();
    fs::create_directories(export_dir_);
    config_.name = "test-pipeline";
    config_.source.discovery = DiscoveryKind::kCda;
    config_.source.uri = export_dir_;
    config_.catalog.type = "filesystem";
    config_.catalog.warehouse = (dir_.path() / "warehouse").string();
    config_.state_dir = (dir_.path() / "state").string();
    config_.target.ns = "default";
    config_.trigger.interval_ms = 50;
    // The pipeline maintains its tables itself; tests that look at it turn it on.
    config_.maintenance.enabled = false;
  }

  // <export>/<table>/<fingerprint>/<ts>/<name> as a CDA part file.
  void WriteCdaFile(const std::string& table, const std::string& fingerprint, int64_t ts,
                    const std::string& name, const std::vector<Change>& changes) {
    const fs::path path = fs::path(export_dir_) / table / fingerprint / std::to_string(ts) / name;
    Schema schema = {MakeField("id", Int64()), MakeField("gwcbi___seqval_hex", String()),
                     MakeField("gwcbi___operation", Int32()), MakeField("name", String())};
    RecordBatch batch;
    batch.schema = schema;
    batch.columns = {MakeEmptyColumn(Int64()), MakeEmptyColumn(String()), MakeEmptyColumn(Int32()),
                     MakeEmptyColumn(String())};
    for (const Change& c : changes) {
      batch.columns[0].AppendValue<int64_t>(c.id);
      batch.columns[1].AppendBytes(c.seq);
      batch.columns[2].AppendValue<int32_t>(c.op);
      batch.columns[3].AppendBytes(c.name);
    }
    batch.num_rows = static_cast<int64_t>(changes.size());
    auto io = MakeLocalFileIO();
    auto out = io->Create(path.string());
    ASSERT_OK(out);
    auto writer = parquet::ParquetFileWriter::Open(std::move(*out), schema, {});
    ASSERT_OK(writer);
    ASSERT_OK((*writer)->Write(batch));
    ASSERT_OK((*writer)->Close());
  }

  void WriteRawFile(const std::string& relative, const std::string& bytes) {
    const fs::path path = fs::path(export_dir_) / relative;
    fs::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << bytes;
  }

  // tables: name -> lastSuccessfulWriteTimestamp; every table has fingerprint "1" from 1000.
  void WriteManifest(const std::map<std::string, int64_t>& tables) {
    std::string json = "{";
    for (const auto& [name, last] : tables) {
      if (json.size() > 1) json += ",";
      json += "\"" + name + "\": {\"lastSuccessfulWriteTimestamp\": \"" + std::to_string(last) +
              "\", \"totalProcessedRecordsCount\": 0, \"dataFilesPath\": \"s3://bucket/" + name +
              "\", \"schemaHistory\": {\"1\": \"1000\"}}";
    }
    WriteRawFile("manifest.json", json + "}");
  }

  Result<std::unique_ptr<Pipeline>> OpenPipeline(PipelineConfig config) {
    PipelineOptions options;
    options.log = &log_;
    return Pipeline::Open(std::move(config), options);
  }
  Result<std::unique_ptr<Pipeline>> OpenPipeline() { return OpenPipeline(config_); }

  // Runs one pass with every FileIO of the pipeline (source, catalog, state
  // dir) behind `faults`, whose plan is armed only once the pipeline is open.
  Result<RunSummary> RunWith(FaultInjectingFileIO& faults, FaultPlan plan) {
    PipelineOptions options;
    options.log = &log_;
    options.wrap_file_io = [&faults](std::shared_ptr<FileIO> base) { return faults.Wrap(std::move(base)); };
    FLOE_ASSIGN_OR_RETURN(auto pipeline, Pipeline::Open(config_, options));
    faults.Reset(std::move(plan));
    return pipeline->RunOnce();
  }

  // Empties the test's directory but for a fresh export folder.
  void Wipe() {
    for (const fs::path& entry : fs::directory_iterator(dir_.path())) fs::remove_all(entry);
    fs::create_directories(export_dir_);
  }

  std::unique_ptr<catalog::Catalog> ReadCatalog() {
    auto tables = catalog::OpenCatalog(config_.catalog);
    EXPECT_TRUE(tables.ok()) << tables.status().ToString();
    return tables.ok() ? std::move(*tables) : nullptr;
  }

  Result<iceberg::Table> LoadTable(const std::string& name) {
    auto tables = ReadCatalog();
    if (tables == nullptr) return Status::Internal("no catalog");
    FLOE_ASSIGN_OR_RETURN(auto id, catalog::ParseTableIdentifier("default." + name));
    FLOE_ASSIGN_OR_RETURN(auto ops, tables->LoadTable(id));
    return iceberg::Table::Load(std::move(ops));
  }

  // id -> name of the table's live rows.
  std::map<int64_t, std::string> Rows(const std::string& name) {
    std::map<int64_t, std::string> rows;
    auto table = LoadTable(name);
    EXPECT_TRUE(table.ok()) << table.status().ToString();
    if (!table.ok()) return rows;
    iceberg::ScanOptions options;
    options.columns = std::vector<std::string>{"id", "name"};
    auto scan = iceberg::TableScan::Make(table->metadata(), MakeLocalFileIO(), options);
    EXPECT_TRUE(scan.ok()) << scan.status().ToString();
    if (!scan.ok()) return rows;
    auto tasks = (*scan)->PlanFiles();
    EXPECT_TRUE(tasks.ok()) << tasks.status().ToString();
    if (!tasks.ok()) return rows;
    for (const auto& task : *tasks) {
      auto reader = (*scan)->Open(task);
      EXPECT_TRUE(reader.ok()) << reader.status().ToString();
      if (!reader.ok()) return rows;
      while (true) {
        auto batch = (*reader)->Next();
        EXPECT_TRUE(batch.ok()) << batch.status().ToString();
        if (!batch.ok() || !batch->has_value()) break;
        const RecordBatch& b = **batch;
        for (int64_t r = 0; r < b.num_rows; ++r) {
          const bool inserted =
              rows.emplace(b.columns[0].Value<int64_t>(r), std::string(b.columns[1].StringAt(r))).second;
          EXPECT_TRUE(inserted) << "key " << b.columns[0].Value<int64_t>(r) << " is live twice";
        }
      }
    }
    return rows;
  }

  size_t SnapshotCount(const std::string& name) {
    auto table = LoadTable(name);
    return table.ok() ? table->metadata().snapshots.size() : 0;
  }

  // Ledger files of `table` in `state`, as paths relative to the export.
  std::vector<std::string> FilesIn(Pipeline& pipeline, const std::string& table, FileState state) {
    LedgerFilter filter;
    filter.table = table;
    filter.state = state;
    auto files = pipeline.ledger().Files(filter);
    EXPECT_TRUE(files.ok()) << files.status().ToString();
    std::vector<std::string> out;
    if (!files.ok()) return out;
    for (const LedgerFile& f : *files) out.push_back(fs::relative(f.file.uri, export_dir_).string());
    std::sort(out.begin(), out.end());
    return out;
  }

  void WriteFirstExport() {
    WriteCdaFile("cc_claim", "1", 1000, "part-0.parquet",
                 {{1, "a", 0, "one"}, {2, "b", 0, "two"}, {3, "c", 2, "three"}});
    WriteCdaFile("cc_claim", "1", 2000, "part-1.parquet", {{2, "1b", 4, "two v2"}, {3, "1c", 1, ""}});
    // Newer than the manifest: still being written, must wait.
    WriteCdaFile("cc_claim", "1", 3000, "part-2.parquet", {{4, "2a", 0, "four"}});
    WriteManifest({{"cc_claim", 2000}});
  }

  testing::TempDir dir_;
  std::string export_dir_;
  PipelineConfig config_;
  std::ostringstream log_;
};

// Continuous mode: new data first.

// A log whose every flush hands the text logged so far to `on_flush` (the
// pipeline flushes after each batch line), to act at a known moment of a Run.
class WatchedLog : public std::stringbuf {
 public:
  std::function<void(const std::string&)> on_flush;

 protected:
  int sync() override {
    if (on_flush) on_flush(str());
    return 0;
  }
};

inline size_t CountOf(const std::string& text, const std::string& what) {
  size_t count = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++count;
  return count;
}

// Sets `stop` once `done()` holds (checked every 10 ms) or after `limit`,
// unless the test stopped it first.
class StopWhen {
 public:
  StopWhen(std::atomic<bool>& stop, std::function<bool()> done, std::chrono::milliseconds limit)
      : thread_([&stop, done = std::move(done), limit, this] {
          const auto until = std::chrono::steady_clock::now() + limit;
          while (!stop.load() && !finished_.load() && std::chrono::steady_clock::now() < until) {
            if (done && done()) break;
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
          }
          stop.store(true);
        }) {}
  ~StopWhen() {
    finished_.store(true);
    thread_.join();
  }

 private:
  std::atomic<bool> finished_{false};
  std::thread thread_;
};

inline std::string ReadText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The trace's lines of one event, in order.
inline std::vector<std::string> TraceEvents(const std::string& path, const std::string& event) {
  std::vector<std::string> lines;
  std::istringstream text(ReadText(path));
  for (std::string line; std::getline(text, line);) {
    if (line.find("\"event\":\"" + event + "\"") != std::string::npos) lines.push_back(line);
  }
  return lines;
}

inline double NumberField(const std::string& line, const std::string& key) {
  const size_t at = line.find("\"" + key + "\":");
  if (at == std::string::npos) return -1;
  return std::stod(line.substr(at + key.size() + 3));
}

// Runs the pipeline's Run on its own thread; Finish stops and joins it.
class BackgroundRun {
 public:
  explicit BackgroundRun(Pipeline& pipeline)
      : thread_([this, &pipeline] { result_.emplace(pipeline.Run(stop_)); }) {}
  ~BackgroundRun() { Finish(); }
  // Milliseconds from the stop request until Run returned.
  double Finish() {
    if (!thread_.joinable()) return 0;
    const auto asked = std::chrono::steady_clock::now();
    stop_.store(true);
    thread_.join();
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - asked).count();
  }
  const Result<RunSummary>& result() const { return *result_; }

 private:
  std::atomic<bool> stop_{false};
  std::optional<Result<RunSummary>> result_;
  std::thread thread_;
};

// A door the test opens; Wait gives up after `limit` (false) so a broken
// pipeline cannot hang the test.
class Latch {
 public:
  void Open() {
    std::lock_guard<std::mutex> guard(mutex_);
    open_ = true;
    opened_.notify_all();
  }
  bool Wait(std::chrono::milliseconds limit) {
    std::unique_lock<std::mutex> guard(mutex_);
    return opened_.wait_for(guard, limit, [this] { return open_; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable opened_;
  bool open_ = false;
};

// Whether `condition` holds within `limit` (checked every 10 ms).
inline bool Eventually(const std::function<bool()>& condition, std::chrono::milliseconds limit) {
  const auto until = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < until) {
    if (condition()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return condition();
}

}  // namespace floe::ingest::pipeline_testing
