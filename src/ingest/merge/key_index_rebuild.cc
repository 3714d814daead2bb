// Building key index runs from an Iceberg table: see key_index_rebuild.h.
#include "ingest/merge/key_index_rebuild.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "formats/parquet/file_reader.h"
#include "iceberg/manifest/manifest_io.h"
#include "iceberg/scan/delete_readers.h"
#include "iceberg/scan/table_scan.h"
#include "ingest/merge/key_index_manifest.h"

namespace floe::ingest::key_index_internal {
namespace {

// The key columns then the ordering columns, as fields of the table schema.
struct ColumnsToRead {
  std::vector<iceberg::NestedField> fields;
  std::vector<std::string> key_names;
  KeyEncoder encoder;
};

Result<const iceberg::NestedField*> TopLevelField(const iceberg::Schema& schema, const std::string& name,
                                                  const char* role) {
  for (const iceberg::NestedField& field : schema.fields) {
    if (field.name == name) return &field;
  }
  return Status::InvalidArgument(std::string(role) + " column " + name + " is not in the table's schema");
}

Result<ColumnsToRead> ResolveColumns(const iceberg::TableMetadata& table, const KeyIndexSpec& spec) {
  const iceberg::Schema* schema = table.CurrentSchema();
  if (!schema) return Status::InvalidArgument("table has no current schema");
  std::vector<iceberg::NestedField> fields;
  std::vector<DataType> key_types;
  for (const std::string& name : spec.key_columns) {
    FLOE_ASSIGN_OR_RETURN(const iceberg::NestedField* field, TopLevelField(*schema, name, "key"));
    FLOE_ASSIGN_OR_RETURN(DataType type, iceberg::ToFloeType(field->type));
    key_types.push_back(type);
    fields.push_back(*field);
  }
  FLOE_RETURN_IF_ERROR(CheckOrderingSpec(spec.ordering));
  for (const OrderColumn& column : spec.ordering.columns) {
    FLOE_ASSIGN_OR_RETURN(const iceberg::NestedField* order, TopLevelField(*schema, column.name, "ordering"));
    fields.push_back(*order);
  }
  FLOE_ASSIGN_OR_RETURN(KeyEncoder encoder, KeyEncoder::Make(key_types, spec.key_columns));
  return ColumnsToRead{std::move(fields), spec.key_columns, std::move(encoder)};
}

// Indexes of `fields` among the file's top-level columns: by field id when the
// file carries ids, by name otherwise.
Result<std::vector<int>> ProjectColumns(const floe::Schema& file_schema,
                                        const std::vector<iceberg::NestedField>& fields) {
  bool has_ids = std::any_of(file_schema.begin(), file_schema.end(),
                             [](const Field& f) { return f.field_id.has_value(); });
  std::vector<int> indexes;
  for (const iceberg::NestedField& wanted : fields) {
    int found = -1;
    for (size_t i = 0; i < file_schema.size() && found < 0; ++i) {
      const Field& f = file_schema[i];
      if (has_ids ? f.field_id == wanted.id : f.name == wanted.name) found = static_cast<int>(i);
    }
    if (found < 0) {
      return Status::InvalidArgument("no column " + wanted.name + " (field id " + std::to_string(wanted.id) +
                                     ")");
    }
    indexes.push_back(found);
  }
  return indexes;
}

class LiveRowReader {
 public:
  LiveRowReader(FileIO& io, const KeyIndexSpec& spec, ColumnsToRead columns, const LiveRowSink& sink)
      : io_(io), spec_(spec), columns_(std::move(columns)), sink_(sink) {}

  Status AddTask(const iceberg::FileScanTask& task) {
    const std::string& data_path = task.data.file.file_path;
    std::vector<int64_t> deleted;
    for (const iceberg::ScanFile& deletes : task.deletes) {
      if (deletes.file.content == iceberg::DataFileContent::kEqualityDeletes) {
        return Status::NotSupported("table has equality deletes (" + deletes.file.file_path +
                                    "); floe's key index cannot be rebuilt");
      }
      FLOE_ASSIGN_OR_RETURN(const auto* positions, PositionDeletes(deletes.file));
      auto it = positions->find(data_path);
      if (it != positions->end()) deleted.insert(deleted.end(), it->second.begin(), it->second.end());
    }
    std::sort(deleted.begin(), deleted.end());
    deleted.erase(std::unique(deleted.begin(), deleted.end()), deleted.end());
    return ReadDataFile(data_path, deleted).WithContext(data_path);
  }

 private:
  using Positions = std::map<std::string, std::vector<int64_t>>;

  // A delete file's positions, read once however many data files it covers.
  Result<const Positions*> PositionDeletes(const iceberg::DataFile& file) {
    auto it = delete_cache_.find(file.file_path);
    if (it == delete_cache_.end()) {
      auto read = iceberg::ReadPositionDeletes(io_, file);
      if (!read.ok()) return read.status().WithContext(file.file_path);
      it = delete_cache_.emplace(file.file_path, std::move(read).value()).first;
    }
    return &it->second;
  }

  Status ReadDataFile(const std::string& path, const std::vector<int64_t>& deleted) {
    FLOE_ASSIGN_OR_RETURN(std::unique_ptr<InputFile> input, io_.OpenRead(path));
    FLOE_ASSIGN_OR_RETURN(auto reader,
                          parquet::ParquetFileReader::Open(std::shared_ptr<InputFile>(std::move(input))));
    FLOE_ASSIGN_OR_RETURN(std::vector<int> indexes, ProjectColumns(reader->schema(), columns_.fields));
    const size_t key_count = columns_.key_names.size();
    int64_t row_offset = 0;
    size_t next_deleted = 0;
    for (int group = 0; group < reader->num_row_groups(); ++group) {
      FLOE_ASSIGN_OR_RETURN(RecordBatch batch, reader->ReadRowGroup(group, indexes));
      if (batch.columns.size() != indexes.size()) {
        return Status::Corruption("row group " + std::to_string(group) + " returned " +
                                  std::to_string(batch.columns.size()) + " columns");
      }
      std::vector<const Column*> keys;
      for (size_t k = 0; k < key_count; ++k) keys.push_back(&batch.columns[k]);
      std::vector<const Column*> orders;
      for (size_t i = 0; i < spec_.ordering.columns.size(); ++i) {
        const Column& order_column = batch.columns[key_count + i];
        const OrderColumn& wanted = spec_.ordering.columns[i];
        FLOE_RETURN_IF_ERROR(CheckOrderColumn(order_column, wanted.kind, wanted.name));
        orders.push_back(&order_column);
      }
      for (int64_t row = 0; row < batch.num_rows; ++row) {
        const int64_t position = row_offset + row;
        while (next_deleted < deleted.size() && deleted[next_deleted] < position) ++next_deleted;
        if (next_deleted < deleted.size() && deleted[next_deleted] == position) continue;
        auto key = columns_.encoder.KeyAt(keys, row);
        if (!key.ok()) return key.status().WithContext("row group " + std::to_string(group));
        auto order = OrderingValueAt(spec_.ordering, orders, row);
        if (!order.ok()) return order.status().WithContext("row group " + std::to_string(group));
        FLOE_RETURN_IF_ERROR(sink_(*key, *order, path, position));
      }
      row_offset += batch.num_rows;
    }
    return Status::OK();
  }

  FileIO& io_;
  const KeyIndexSpec& spec_;
  ColumnsToRead columns_;
  const LiveRowSink& sink_;
  std::map<std::string, Positions> delete_cache_;
};

}  // namespace

Result<bool> KeysAreExactIntegers(const iceberg::TableMetadata& table, const KeyIndexSpec& spec) {
  FLOE_ASSIGN_OR_RETURN(ColumnsToRead columns, ResolveColumns(table, spec));
  return columns.encoder.exact_integer();
}

Status ScanLiveRows(const iceberg::TableMetadata& table, FileIO& table_io, const KeyIndexSpec& spec,
                    const std::set<std::string>* only, const LiveRowSink& sink) {
  FLOE_ASSIGN_OR_RETURN(ColumnsToRead columns, ResolveColumns(table, spec));
  if (!table.CurrentSnapshot()) return Status::OK();
  // TableScan wants shared ownership; the caller keeps table_io alive for this call.
  std::shared_ptr<FileIO> io(&table_io, [](FileIO*) {});
  FLOE_ASSIGN_OR_RETURN(auto scan, iceberg::TableScan::Make(table, io));
  FLOE_ASSIGN_OR_RETURN(std::vector<iceberg::FileScanTask> tasks, scan->PlanFiles());
  LiveRowReader reader(table_io, spec, std::move(columns), sink);
  for (const iceberg::FileScanTask& task : tasks) {
    if (only != nullptr && !only->count(task.data.file.file_path)) continue;
    FLOE_RETURN_IF_ERROR(reader.AddTask(task));
  }
  return Status::OK();
}

Result<std::set<std::string>> DataFilesAddedBy(const iceberg::TableMetadata& table, FileIO& table_io,
                                               const std::set<int64_t>& snapshot_ids) {
  std::set<std::string> added;
  const iceberg::Schema* schema = table.CurrentSchema();
  if (schema == nullptr) return Status::InvalidArgument("table has no current schema");
  for (int64_t id : snapshot_ids) {
    const iceberg::Snapshot* snapshot = table.SnapshotById(id);
    if (snapshot == nullptr)
      return Status::NotFound("snapshot " + std::to_string(id) + " is not in the table");
    FLOE_ASSIGN_OR_RETURN(auto manifests, iceberg::ReadManifestList(table_io, snapshot->manifest_list));
    for (const iceberg::ManifestFile& manifest : manifests) {
      if (manifest.content != iceberg::ManifestContent::kData || manifest.added_snapshot_id != id) continue;
      FLOE_ASSIGN_OR_RETURN(auto entries, iceberg::ReadScanManifest(table_io, table, manifest, *schema));
      for (const iceberg::ManifestEntry& entry : entries) {
        if (entry.status == iceberg::ManifestEntryStatus::kAdded) added.insert(entry.data_file.file_path);
      }
    }
  }
  return added;
}

SortedRunSpiller::SortedRunSpiller(FileIO& io, std::string dir, size_t max_buffered, bool bloom)
    : io_(io), dir_(std::move(dir)), max_buffered_(std::max<size_t>(max_buffered, 1)), bloom_(bloom) {}

SortedRunSpiller::~SortedRunSpiller() {
  if (finished_) return;
  for (const auto& run : runs_) (void)io_.Delete(run->path());
}

Status SortedRunSpiller::Add(const KeyId& key, const OrderValue& order, const std::string& data_file,
                             int64_t position) {
  if (files_.empty() || data_file != files_[last_number_]) {
    auto [it, added] = numbers_.try_emplace(data_file, static_cast<uint32_t>(files_.size()));
    if (added) files_.push_back(data_file);
    last_number_ = it->second;
  }
  // Reserved whole once: a growing vector would briefly hold its old and
  // new buffers, up to twice the sort's share of the budget.
  if (buffer_.capacity() < max_buffered_) buffer_.reserve(max_buffered_);
  RunEntry entry;
  entry.key = CanonicalKey(key);
  entry.order = order;
  entry.value = position;
  entry.file = last_number_;
  buffer_.push_back(entry);
  return buffer_.size() >= max_buffered_ ? Spill() : Status::OK();
}

Status SortedRunSpiller::Spill() {
  if (buffer_.empty()) return Status::OK();
  // By key, then ordering value: the last of each key is the one kept.
  std::sort(buffer_.begin(), buffer_.end(), [](const RunEntry& a, const RunEntry& b) {
    if (!(a.key == b.key)) return KeyLess(a.key, b.key);
    return a.order < b.order;
  });
  RunWriterOptions options;
  options.hashed =
      std::any_of(buffer_.begin(), buffer_.end(), [](const RunEntry& e) { return e.key.hi != 0; });
  options.bloom = bloom_;
  options.expected_entries = buffer_.size();
  const std::string path = IndexFilePath(dir_, NewRunName());
  FLOE_ASSIGN_OR_RETURN(auto writer, RunWriter::Create(io_, path, options));
  for (size_t i = 0; i < buffer_.size(); ++i) {
    if (i + 1 < buffer_.size() && buffer_[i + 1].key == buffer_[i].key) {
      // Count a key once however many rows it has.
      if (i == 0 || !(buffer_[i - 1].key == buffer_[i].key)) ++duplicates_;
      continue;
    }
    FLOE_RETURN_IF_ERROR(writer->Add(buffer_[i]));
  }
  FLOE_ASSIGN_OR_RETURN(RunInfo info, writer->Finish(files_));
  buffer_.clear();
  FLOE_ASSIGN_OR_RETURN(auto run, RunReader::Open(io_, info.path));
  runs_.push_back(std::move(run));
  return Status::OK();
}

Result<std::vector<std::shared_ptr<const RunReader>>> SortedRunSpiller::Finish() {
  FLOE_RETURN_IF_ERROR(Spill());
  finished_ = true;
  std::vector<RunEntry>().swap(buffer_);
  return std::move(runs_);
}

}  // namespace floe::ingest::key_index_internal
