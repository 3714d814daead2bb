// A CDA export of one big narrow table, fast: the workload of the huge-table
// benchmark (bench/pipeline/big_table.sh), where `floe demo generate` (which
// replays its whole change stream in memory per call) cannot go.
//
//   big_table_export init DIR --keys N [--files F] [--seed S]
//       one committed folder holding ids 1..N, each inserted once (seqvals
//       increasing with the id), in F part files of one row group per 1M rows
//   big_table_export append DIR --changes C [--updates U] [--deletes D]
//       one more committed folder of C changes: U of them updates of random
//       existing ids, D deletes of random existing ids (distinct ids within
//       the folder), the rest inserts of new ids; seqvals continue
//
// Table cc_claimtransaction: id, the gwcbi___ change columns CDA writes
// (seqval_hex, operation 2 insert / 4 update / 1 delete, connector_ts_ms)
// and five business columns (publicid, amount decimal(18,2), status,
// transactiondate, retired). DIR/.big-table-state.json keeps the next id,
// seqval and round; manifest.json is rewritten each call. Prints one line:
// rows written, seconds. Deterministic for a seed.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "demo/demo_tables.h"
#include "formats/parquet/file_writer.h"
#include "io/file_io.h"

namespace {

using namespace floe;

constexpr const char* kTable = "cc_claimtransaction";
constexpr const char* kFingerprint = "0f3c9a51b2e4d6708192a3b4c5d6e7f8";
constexpr int64_t kStartMs = 1764547200000;  // 2025-12-01T00:00:00Z
constexpr int64_t kFolderIntervalMs = 5 * 60 * 1000;
constexpr int64_t kRowGroupRows = 1'000'000;

struct State {
  int64_t next_id = 1;
  uint64_t next_seqval = 0x1000;
  int64_t round = 0;  // folders written
  uint64_t seed = 1;
  int64_t rows = 0;  // change rows in all folders
};

std::string StatePath(const std::string& dir) {
  return dir + "/.big-table-state.json";
}

bool ReadState(const std::string& dir, State* state) {
  std::ifstream in(StatePath(dir));
  if (!in) return false;
  std::string key;
  while (in >> key) {
    if (key == "next_id") in >> state->next_id;
    if (key == "next_seqval") in >> state->next_seqval;
    if (key == "round") in >> state->round;
    if (key == "seed") in >> state->seed;
    if (key == "rows") in >> state->rows;
  }
  return true;
}

void WriteState(const std::string& dir, const State& state) {
  std::ofstream out(StatePath(dir));
  out << "next_id " << state.next_id << "\nnext_seqval " << state.next_seqval << "\nround " << state.round
      << "\nseed " << state.seed << "\nrows " << state.rows << "\n";
}

int64_t FolderMs(int64_t round) {
  return kStartMs + round * kFolderIntervalMs;
}

void WriteManifest(const std::string& dir, const State& state) {
  std::ofstream out(dir + "/manifest.json");
  out << "{\n  \"" << kTable << "\": {\n    \"lastSuccessfulWriteTimestamp\": \"" << FolderMs(state.round - 1)
      << "\",\n    \"totalProcessedRecordsCount\": " << state.rows
      << ",\n    \"dataFilesPath\": \"s3://bench/cda/" << kTable << "\",\n    \"schemaHistory\": {\""
      << kFingerprint << "\": \"" << (kStartMs - 60000) << "\"}\n  }\n}\n";
}

Schema TableSchema() {
  return {MakeField("gwcbi___connector_ts_ms", Int64()),
          MakeField("gwcbi___operation", Int32()),
          MakeField("gwcbi___seqval_hex", String()),
          MakeField("id", Int64()),
          MakeField("publicid", String()),
          MakeField("amount", Decimal(18, 2)),
          MakeField("status", Int32()),
          MakeField("transactiondate", Timestamp(TimeUnit::kMicro, true)),
          MakeField("retired", Int64())};
}

// Rows of one part file, built change by change.
class PartBuilder {
 public:
  PartBuilder() : schema_(TableSchema()) {
    for (const Field& field : schema_) columns_.push_back(MakeEmptyColumn(field.type));
  }
  void Add(int64_t id, int32_t operation, uint64_t seqval, int64_t ts_ms) {
    columns_[0].AppendValue<int64_t>(ts_ms);
    columns_[1].AppendValue<int32_t>(operation);
    columns_[2].AppendBytes(demo::SeqvalHex(seqval));
    columns_[3].AppendValue<int64_t>(id);
    columns_[4].AppendBytes("ct:" + std::to_string(id));
    columns_[5].AppendValue(static_cast<__int128>((id * 7919 + static_cast<int64_t>(seqval)) % 100000000));
    columns_[6].AppendValue<int32_t>(static_cast<int32_t>((id + static_cast<int64_t>(seqval)) % 7));
    columns_[7].AppendValue<int64_t>(ts_ms * 1000);
    columns_[8].AppendValue<int64_t>(0);
    ++rows_;
  }
  int64_t rows() const { return rows_; }
  Status Write(FileIO& io, const std::string& path) {
    RecordBatch batch;
    batch.schema = schema_;
    batch.columns = std::move(columns_);
    batch.num_rows = rows_;
    FLOE_ASSIGN_OR_RETURN(auto file, io.Create(path));
    parquet::ParquetWriterOptions options;
    options.codec = Codec::kSnappy;
    options.row_group_max_rows = kRowGroupRows;
    options.created_by = "floe big table bench export";
    FLOE_ASSIGN_OR_RETURN(auto writer,
                          parquet::ParquetFileWriter::Open(std::move(file), batch.schema, options));
    FLOE_RETURN_IF_ERROR(writer->Write(batch));
    FLOE_RETURN_IF_ERROR(writer->Close().status());
    columns_.clear();
    for (const Field& field : schema_) columns_.push_back(MakeEmptyColumn(field.type));
    rows_ = 0;
    return Status::OK();
  }

 private:
  Schema schema_;
  std::vector<Column> columns_;
  int64_t rows_ = 0;
};

std::string FolderPath(const std::string& dir, int64_t round) {
  return dir + "/" + kTable + "/" + kFingerprint + "/" + std::to_string(FolderMs(round));
}

std::string PartPath(const std::string& folder, int64_t part) {
  char name[64];
  std::snprintf(name, sizeof(name), "/part-%05lld-bench-c000.snappy.parquet", static_cast<long long>(part));
  return folder + name;
}

int Fail(const Status& status) {
  std::cerr << "big_table_export: " << status.ToString() << "\n";
  return 1;
}

int64_t Arg(int argc, char** argv, const char* name, int64_t fallback) {
  for (int i = 0; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], name) == 0) return std::atoll(argv[i + 1]);
  }
  return fallback;
}

double FractionArg(int argc, char** argv, const char* name, double fallback) {
  for (int i = 0; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], name) == 0) return std::atof(argv[i + 1]);
  }
  return fallback;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3 || (std::strcmp(argv[1], "init") != 0 && std::strcmp(argv[1], "append") != 0)) {
    std::cerr << "usage: big_table_export init DIR --keys N [--files F] [--seed S]\n"
                 "       big_table_export append DIR --changes C [--updates U] [--deletes D]\n";
    return 2;
  }
  const auto started = std::chrono::steady_clock::now();
  const std::string dir = std::filesystem::absolute(argv[2]).lexically_normal().string();
  auto io = MakeLocalFileIO();
  State state;
  int64_t rows = 0;
  if (std::strcmp(argv[1], "init") == 0) {
    if (ReadState(dir, &state)) return Fail(Status::AlreadyExists(dir + " already holds an export"));
    state.seed = static_cast<uint64_t>(Arg(argc, argv, "--seed", 1));
    const int64_t keys = Arg(argc, argv, "--keys", 1'000'000);
    const int64_t files =
        std::max<int64_t>(1, Arg(argc, argv, "--files", std::max<int64_t>(1, keys / 4'000'000)));
    const std::string folder = FolderPath(dir, 0);
    for (int64_t f = 0; f < files; ++f) {
      PartBuilder part;
      const int64_t end = keys * (f + 1) / files;
      for (; state.next_id <= end; ++state.next_id)
        part.Add(state.next_id, 2, state.next_seqval++, FolderMs(0));
      rows += part.rows();
      if (Status written = part.Write(*io, PartPath(folder, f)); !written.ok()) return Fail(written);
    }
    state.round = 1;
  } else {
    if (!ReadState(dir, &state)) return Fail(Status::NotFound(StatePath(dir) + " not found: run init first"));
    const int64_t changes = Arg(argc, argv, "--changes", 10'000);
    const double updates = FractionArg(argc, argv, "--updates", 0.3);
    const double deletes = FractionArg(argc, argv, "--deletes", 0.05);
    std::mt19937_64 random(state.seed * 1'000'003 + static_cast<uint64_t>(state.round));
    const auto existing = static_cast<uint64_t>(state.next_id - 1);
    const auto updated = static_cast<int64_t>(static_cast<double>(changes) * updates);
    const auto deleted = static_cast<int64_t>(static_cast<double>(changes) * deletes);
    std::set<int64_t> touched;
    PartBuilder part;
    const int64_t ts = FolderMs(state.round);
    // Updates and deletes of distinct random existing ids, then inserts of new ids.
    for (int64_t i = 0; i < updated + deleted && touched.size() < existing; ++i) {
      int64_t id = 0;
      do {
        id = 1 + static_cast<int64_t>(random() % existing);
      } while (!touched.insert(id).second);
      part.Add(id, i < updated ? 4 : 1, state.next_seqval++, ts);
    }
    while (part.rows() < changes) part.Add(state.next_id++, 2, state.next_seqval++, ts);
    rows = part.rows();
    if (Status written = part.Write(*io, PartPath(FolderPath(dir, state.round), 0)); !written.ok())
      return Fail(written);
    ++state.round;
  }
  state.rows += rows;
  WriteState(dir, state);
  WriteManifest(dir, state);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::printf("rows %lld, keys %lld, round %lld, %.2f s\n", static_cast<long long>(rows),
              static_cast<long long>(state.next_id - 1), static_cast<long long>(state.round), seconds);
  return 0;
}
