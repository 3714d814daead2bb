#include "demo/demo_export.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <utility>

#include "common/strings.h"
#include "demo/demo_random.h"
#include "demo/demo_stream.h"
#include "demo/demo_tables.h"
#include "formats/parquet/file_writer.h"

namespace floe::demo {
namespace {

using demo::DemoChange;
using demo::DemoChangeStream;
using demo::DemoRandom;
using demo::DemoTable;
using demo::MixKey;
using Json = nlohmann::ordered_json;

constexpr const char* kStateFile = ".floe-demo-state.json";
constexpr const char* kStateFormat = "floe-demo-export/1";
constexpr int kMaxTables = 50;
constexpr int kMaxFolders = 100000;
constexpr int kMaxFilesPerFolder = 10000;
constexpr int64_t kMaxRows = int64_t{1} << 32;

// One generator call: the initial export (round 0) or an append round.
struct GeneratorCall {
  int round = 0;
  int folders = 0;  // committed folders it adds
};

// What a consumer of the committed folders must end up with, per table.
struct CommittedState {
  int64_t change_rows = 0;
  std::map<int64_t, std::pair<uint64_t, bool>> newest;  // id -> (seqval, is delete)
  int64_t LiveRows() const {
    return std::count_if(newest.begin(), newest.end(),
                         [](const auto& entry) { return !entry.second.second; });
  }
};

Status ValidateOptions(const DemoExportOptions& options) {
  if (options.rows < 1 || options.rows > kMaxRows) {
    return Status::InvalidArgument("demo export: rows must be between 1 and " + std::to_string(kMaxRows) +
                                   ", got " + std::to_string(options.rows));
  }
  if (options.tables < 1 || options.tables > kMaxTables) {
    return Status::InvalidArgument("demo export: tables must be between 1 and " + std::to_string(kMaxTables) +
                                   ", got " + std::to_string(options.tables));
  }
  if (options.folders < 1 || options.folders > kMaxFolders) {
    return Status::InvalidArgument("demo export: folders must be between 1 and " +
                                   std::to_string(kMaxFolders) + ", got " + std::to_string(options.folders));
  }
  if (options.files_per_folder < 1 || options.files_per_folder > kMaxFilesPerFolder) {
    return Status::InvalidArgument("demo export: files per folder must be between 1 and " +
                                   std::to_string(kMaxFilesPerFolder) + ", got " +
                                   std::to_string(options.files_per_folder));
  }
  const bool fractions_ok = options.update_fraction >= 0 && options.delete_fraction >= 0 &&
                            options.update_fraction + options.delete_fraction <= 0.95;
  if (!fractions_ok) {
    return Status::InvalidArgument(
        "demo export: update and delete fractions must be >= 0 and add up to at most 0.95");
  }
  if (options.start_ms < 0) return Status::InvalidArgument("demo export: start_ms must not be negative");
  return Status::OK();
}

std::string JoinPath(const std::string& root, const std::string& relative) {
  if (root.empty()) return relative;
  return root.back() == '/' ? root + relative : root + "/" + relative;
}

std::string Hex(uint64_t value, int digits) {
  std::string out(static_cast<size_t>(digits), '0');
  for (int i = digits - 1; i >= 0; --i, value >>= 4)
    out[static_cast<size_t>(i)] = kLowerHexDigits[value & 0xF];
  return out;
}

std::string Fingerprint(uint64_t seed, int table_index, int generation) {
  DemoRandom random(MixKey(
      {seed, 0x66696E676572ULL, static_cast<uint64_t>(table_index), static_cast<uint64_t>(generation)}));
  return Hex(random.Next(), 16) + Hex(random.Next(), 16);
}

// A version-4-shaped UUID from the generator's randomness.
std::string DemoUuid(DemoRandom& random) {
  const uint64_t high = (random.Next() & ~0xF000ULL) | 0x4000ULL;
  const uint64_t low = (random.Next() & ~(3ULL << 62)) | (2ULL << 62);
  const std::string text = Hex(high, 16) + Hex(low, 16);
  return text.substr(0, 8) + "-" + text.substr(8, 4) + "-" + text.substr(12, 4) + "-" + text.substr(16, 4) +
         "-" + text.substr(20, 12);
}

int SchemaSwitchFolder(const DemoExportOptions& options) {
  return options.schema_change && options.folders >= 2 ? options.folders / 2 : -1;
}

std::optional<int> EmptyFolder(const DemoExportOptions& options) {
  if (!options.empty_folder || options.folders < 3) return std::nullopt;
  return std::max(1, options.folders / 3);
}

int GenerationOf(const DemoExportOptions& options, int folder) {
  const int switch_folder = SchemaSwitchFolder(options);
  return switch_folder >= 0 && folder >= switch_folder ? 1 : 0;
}

// The name of the export's table `index`: the five demo tables, then the same
// kinds again as <name>_2, <name>_3, ... (scale-out tests need many tables).
std::string DemoTableName(int index) {
  const DemoTable& kind = demo::DemoTables()[static_cast<size_t>(index) % demo::DemoTables().size()];
  const size_t round = static_cast<size_t>(index) / demo::DemoTables().size();
  return round == 0 ? kind.name : kind.name + "_" + std::to_string(round + 1);
}

struct FolderTarget {
  const DemoTable* table = nullptr;
  std::string table_name;
  int table_index = 0;
  int folder = 0;
  int generation = 0;
  std::string fingerprint;
  int64_t timestamp_ms = 0;
  std::string directory;  // .../<table>/<fingerprint>/<timestamp>
};

Result<int64_t> WritePartFile(FileIO& io, const std::string& path, const FolderTarget& target,
                              const DemoExportOptions& options, const std::vector<DemoChange>& changes,
                              size_t begin, size_t end) {
  demo::DemoBatchBuilder builder(*target.table, target.table_index, target.generation, options.seed);
  for (size_t i = begin; i < end; ++i) builder.Append(changes[i].image, changes[i].columns);
  const RecordBatch batch = builder.Finish();
  FLOE_ASSIGN_OR_RETURN(auto file, io.Create(path));
  parquet::ParquetWriterOptions writer_options;
  writer_options.codec = Codec::kSnappy;
  writer_options.created_by = "floe demo export generator";
  FLOE_ASSIGN_OR_RETURN(auto writer, parquet::ParquetFileWriter::Open(std::move(file), batch.schema,
                                                                      std::move(writer_options)));
  FLOE_RETURN_IF_ERROR(writer->Write(batch));
  FLOE_ASSIGN_OR_RETURN(auto written, writer->Close());
  return written.file_size;
}

// Writes one timestamp folder: its part files (rows shuffled, split evenly)
// and .cda/batch-metrics.json.
Status WriteFolder(FileIO& io, const FolderTarget& target, const DemoExportOptions& options,
                   std::vector<DemoChange> changes, DemoExportSummary& summary) {
  DemoRandom random(MixKey({options.seed, 0x666F6C646572ULL, static_cast<uint64_t>(target.table_index),
                            static_cast<uint64_t>(target.folder)}));
  for (size_t i = changes.size(); i > 1; --i) std::swap(changes[i - 1], changes[random.Below(i)]);
  const size_t files = std::min(changes.size(), static_cast<size_t>(options.files_per_folder));
  const std::string uuid = DemoUuid(random);
  for (size_t f = 0; f < files; ++f) {
    char name[96];
    std::snprintf(name, sizeof(name), "part-%05zu-%s-c000.snappy.parquet", f, uuid.c_str());
    const std::string path = JoinPath(target.directory, name);
    const size_t begin = changes.size() * f / files;
    const size_t end = changes.size() * (f + 1) / files;
    Result<int64_t> size = WritePartFile(io, path, target, options, changes, begin, end);
    if (!size.ok()) return size.status().WithContext(path);
    summary.files += 1;
    summary.bytes += *size;
    summary.rows += static_cast<int64_t>(end - begin);
  }
  const int64_t written = static_cast<int64_t>(changes.size());
  const int64_t dropped = written == 0 ? random.Between(3, 40) : random.Between(0, written / 20);
  Json metrics = {{"tableName", target.table_name},        {"schemaId", target.fingerprint},
                  {"batchTimestamp", target.timestamp_ms}, {"numRecordsRead", written + dropped},
                  {"numRecordsWritten", written},          {"numRecordsDropped", dropped}};
  const std::string metrics_path = JoinPath(target.directory, ".cda/batch-metrics.json");
  Status status = io.WriteAll(metrics_path, metrics.dump(2) + "\n");
  return status.ok() ? status : status.WithContext(metrics_path);
}

// Runs every call's change stream for every table, writes the folders of
// the last call, then rewrites manifest.json.
Status RunCalls(FileIO& io, const std::string& root, const DemoExportOptions& options,
                const std::vector<GeneratorCall>& calls, DemoExportSummary& summary) {
  Json manifest = Json::object();
  const bool uncommitted = options.uncommitted_folder;
  for (int t = 0; t < options.tables; ++t) {
    const DemoTable& table = demo::DemoTables()[static_cast<size_t>(t) % demo::DemoTables().size()];
    const std::string table_name = DemoTableName(t);
    summary.tables.push_back(table_name);
    DemoChangeStream stream(options.seed, t, table, options);
    const std::string fingerprints[2] = {Fingerprint(options.seed, t, 0), Fingerprint(options.seed, t, 1)};
    CommittedState committed;
    for (size_t c = 0; c < calls.size(); ++c) {
      const bool last_call = c + 1 == calls.size();
      const int count = calls[c].folders + (uncommitted ? 1 : 0);
      const int first = stream.next_folder();
      std::vector<std::vector<DemoChange>> folders =
          stream.GenerateFolders(calls[c].round, count, c == 0 ? EmptyFolder(options) : std::nullopt);
      for (int k = 0; k < count; ++k) {
        std::vector<DemoChange>& changes = folders[static_cast<size_t>(k)];
        const bool is_committed = !(uncommitted && last_call && k == count - 1);
        if (is_committed) {
          committed.change_rows += static_cast<int64_t>(changes.size());
          for (const DemoChange& change : changes) {
            if (change.columns.operation == 3) continue;
            auto [it, inserted] = committed.newest.try_emplace(change.image.id, change.columns.seqval, false);
            if (inserted || change.columns.seqval > it->second.first) {
              it->second = {change.columns.seqval, change.columns.operation == 1};
            }
          }
        }
        if (!last_call) continue;
        FolderTarget target;
        target.table = &table;
        target.table_name = table_name;
        target.table_index = t;
        target.folder = first + k;
        target.generation = GenerationOf(options, target.folder);
        target.fingerprint = fingerprints[target.generation];
        target.timestamp_ms = stream.FolderTimestamp(target.folder);
        target.directory =
            JoinPath(root, table_name + "/" + target.fingerprint + "/" + std::to_string(target.timestamp_ms));
        FLOE_RETURN_IF_ERROR(WriteFolder(io, target, options, std::move(changes), summary));
      }
    }
    const int last_committed = stream.next_folder() - 1 - (uncommitted ? 1 : 0);
    summary.committed_rows += committed.change_rows;
    summary.expected_rows[table_name] = committed.LiveRows();
    Json history = Json::object();
    history[fingerprints[0]] = std::to_string(stream.FolderTimestamp(0) - 60'000);
    if (const int switch_folder = SchemaSwitchFolder(options); switch_folder >= 0) {
      history[fingerprints[1]] =
          std::to_string(stream.FolderTimestamp(switch_folder) - demo::kFolderIntervalMs / 2);
    }
    manifest[table_name] = {
        {"lastSuccessfulWriteTimestamp", std::to_string(stream.FolderTimestamp(last_committed))},
        {"totalProcessedRecordsCount", committed.change_rows},
        {"dataFilesPath", "s3://demo-bucket/cda/" + table_name},
        {"schemaHistory", history}};
  }
  const std::string manifest_path = JoinPath(root, "manifest.json");
  Status status = io.WriteAll(manifest_path, manifest.dump(2) + "\n");
  return status.ok() ? status : status.WithContext(manifest_path);
}

Json StateJson(const DemoExportOptions& options, const std::vector<GeneratorCall>& calls) {
  Json appends = Json::array();
  for (size_t c = 1; c < calls.size(); ++c) {
    appends.push_back({{"round", calls[c].round}, {"folders", calls[c].folders}});
  }
  return {{"format", kStateFormat},
          {"seed", options.seed},
          {"rows", options.rows},
          {"tables", options.tables},
          {"folders", options.folders},
          {"files_per_folder", options.files_per_folder},
          {"update_fraction", options.update_fraction},
          {"delete_fraction", options.delete_fraction},
          {"schema_change", options.schema_change},
          {"empty_folder", options.empty_folder},
          {"uncommitted_folder", options.uncommitted_folder},
          {"start_ms", options.start_ms},
          {"appends", appends}};
}

// Reads the state file back; any surprise is InvalidArgument naming the member.
Result<std::pair<DemoExportOptions, std::vector<GeneratorCall>>> ParseState(const std::string& text,
                                                                            const std::string& path) {
  Json state = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (state.is_discarded() || !state.is_object()) {
    return Status::InvalidArgument(path + ": not a JSON object");
  }
  const auto format = state.find("format");
  if (format == state.end() || !format->is_string() || format->get<std::string>() != kStateFormat) {
    return Status::InvalidArgument(path + ": format is not \"" + std::string(kStateFormat) + "\"");
  }
  Status problem = Status::OK();
  auto get = [&](const char* member, auto& out) {
    const auto it = state.find(member);
    using T = std::decay_t<decltype(out)>;
    bool ok = it != state.end();
    if (ok) {
      if constexpr (std::is_same_v<T, bool>) {
        ok = it->is_boolean();
      } else if constexpr (std::is_floating_point_v<T>) {
        ok = it->is_number();
      } else {
        ok = it->is_number_integer();
      }
    }
    if (!ok) {
      if (problem.ok())
        problem = Status::InvalidArgument(path + ": member " + member + " missing or mistyped");
      return;
    }
    out = it->template get<T>();
  };
  DemoExportOptions options;
  get("seed", options.seed);
  get("rows", options.rows);
  get("tables", options.tables);
  get("folders", options.folders);
  get("files_per_folder", options.files_per_folder);
  get("update_fraction", options.update_fraction);
  get("delete_fraction", options.delete_fraction);
  get("schema_change", options.schema_change);
  get("empty_folder", options.empty_folder);
  get("uncommitted_folder", options.uncommitted_folder);
  get("start_ms", options.start_ms);
  FLOE_RETURN_IF_ERROR(problem);
  Status valid = ValidateOptions(options);
  if (!valid.ok()) return valid.WithContext(path);
  std::vector<GeneratorCall> calls = {{0, options.folders}};
  const auto appends = state.find("appends");
  if (appends == state.end() || !appends->is_array()) {
    return Status::InvalidArgument(path + ": member appends missing or not an array");
  }
  for (const Json& entry : *appends) {
    const bool ok = entry.is_object() && entry.contains("round") && entry["round"].is_number_integer() &&
                    entry.contains("folders") && entry["folders"].is_number_integer();
    if (!ok) return Status::InvalidArgument(path + ": appends entry needs integer round and folders");
    const int64_t round = entry["round"].get<int64_t>();
    const int64_t folders = entry["folders"].get<int64_t>();
    if (round <= calls.back().round || round > kMaxFolders || folders < 1 || folders > kMaxFolders) {
      return Status::InvalidArgument(path + ": appends entry round " + std::to_string(round) + " folders " +
                                     std::to_string(folders) + " out of order or range");
    }
    calls.push_back({static_cast<int>(round), static_cast<int>(folders)});
  }
  return std::make_pair(options, calls);
}

}  // namespace

Result<DemoExportSummary> GenerateDemoExport(FileIO& io, const std::string& root,
                                             const DemoExportOptions& options) {
  FLOE_RETURN_IF_ERROR(ValidateOptions(options));
  const std::string manifest_path = JoinPath(root, "manifest.json");
  FLOE_ASSIGN_OR_RETURN(bool exists, io.Exists(manifest_path));
  if (exists) {
    return Status::AlreadyExists("demo export: " + manifest_path +
                                 " already exists; generate into an empty directory");
  }
  DemoExportSummary summary;
  summary.root = root;
  const std::vector<GeneratorCall> calls = {{0, options.folders}};
  FLOE_RETURN_IF_ERROR(RunCalls(io, root, options, calls, summary));
  const std::string state_path = JoinPath(root, kStateFile);
  Status status = io.WriteAll(state_path, StateJson(options, calls).dump(2) + "\n");
  if (!status.ok()) return status.WithContext(state_path);
  return summary;
}

Result<DemoExportSummary> AppendDemoFolders(FileIO& io, const std::string& root,
                                            const DemoExportOptions& /*options*/, int round, int folders) {
  const std::string state_path = JoinPath(root, kStateFile);
  FLOE_ASSIGN_OR_RETURN(bool exists, io.Exists(state_path));
  if (!exists) {
    return Status::NotFound("demo export: " + state_path +
                            " not found; append works on an export made by `floe demo generate`");
  }
  FLOE_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, io.ReadAll(state_path));
  FLOE_ASSIGN_OR_RETURN(auto state, ParseState(std::string(bytes.begin(), bytes.end()), state_path));
  auto& [recorded, calls] = state;
  if (round <= calls.back().round) {
    return Status::InvalidArgument("demo export: append round " + std::to_string(round) +
                                   " must be greater than the last one, " +
                                   std::to_string(calls.back().round));
  }
  if (folders < 1 || folders > kMaxFolders) {
    return Status::InvalidArgument("demo export: append folders must be between 1 and " +
                                   std::to_string(kMaxFolders) + ", got " + std::to_string(folders));
  }
  calls.push_back({round, folders});
  DemoExportSummary summary;
  summary.root = root;
  FLOE_RETURN_IF_ERROR(RunCalls(io, root, recorded, calls, summary));
  Status status = io.WriteAll(state_path, StateJson(recorded, calls).dump(2) + "\n");
  if (!status.ok()) return status.WithContext(state_path);
  return summary;
}

}  // namespace floe::demo
