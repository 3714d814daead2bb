#include "iceberg/scan/table_scan.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "columnar/column_rows.h"
#include "formats/parquet/file_reader.h"
#include "iceberg/manifest/manifest_io.h"
#include "iceberg/puffin/deletion_vector.h"
#include "iceberg/scan/delete_loader.h"
#include "iceberg/scan/delete_readers.h"
#include "iceberg/scan/projection.h"
#include "iceberg/scan/pruning.h"
#include "iceberg/spec/column_literal.h"
#include "iceberg/spec/row_lineage.h"

namespace floe::iceberg {
namespace {

bool IsPartitionedSpec(const TableMetadata& metadata, int32_t spec_id) {
  const PartitionSpec* spec = metadata.SpecById(spec_id);
  return spec != nullptr && !spec->is_unpartitioned();
}

// Whether `path` may lie in [lower, upper] of the delete file's file_path bounds.
bool PathWithinBounds(const DataFile& deletes, const std::string& path) {
  if (auto it = deletes.lower_bounds.find(kDeleteFilePathFieldId); it != deletes.lower_bounds.end()) {
    if (path < it->second) return false;
  }
  if (auto it = deletes.upper_bounds.find(kDeleteFilePathFieldId); it != deletes.upper_bounds.end()) {
    if (path > it->second) return false;
  }
  return true;
}

// Where the lineage columns of a row-lineage scan are, and what a row inherits.
struct LineageFill {
  size_t row_id_column = 0;
  size_t sequence_column = 0;
  std::optional<int64_t> first_row_id;  // the data file's (null: rows have no inherited id)
  int64_t data_sequence_number = 0;
};

// The positions in its data file of a batch's rows: consecutive from
// `first`, or listed (a batch read at chosen positions).
struct RowPositions {
  int64_t first = 0;
  const std::vector<int64_t>* listed = nullptr;

  int64_t operator[](int64_t row) const {
    return listed != nullptr ? (*listed)[static_cast<size_t>(row)] : first + row;
  }
};

// Replaces null lineage values by the inherited ones (spec "Row Lineage").
void FillLineage(const LineageFill& fill, RowPositions positions, RecordBatch* batch) {
  auto fill_column = [&](size_t index, auto inherited) {
    const Column& read = batch->columns[index];
    Column out(read.type);
    for (int64_t row = 0; row < batch->num_rows; ++row) {
      std::optional<int64_t> value;
      if (read.IsValid(row)) {
        value = read.Value<int64_t>(row);
      } else {
        value = inherited(positions[row]);
      }
      if (value) {
        out.AppendValue<int64_t>(*value);
      } else {
        out.AppendNull();
      }
    }
    out.length = batch->num_rows;
    batch->columns[index] = std::move(out);
  };
  fill_column(fill.row_id_column, [&](int64_t position) -> std::optional<int64_t> {
    if (!fill.first_row_id) return std::nullopt;
    return *fill.first_row_id + position;
  });
  fill_column(fill.sequence_column,
              [&](int64_t) -> std::optional<int64_t> { return fill.data_sequence_number; });
}

class ParquetTaskReader : public TaskReader {
 public:
  ParquetTaskReader(std::unique_ptr<parquet::ParquetFileReader> reader, FileProjection projection,
                    size_t output_columns, floe::Schema output_schema, std::vector<int64_t> deleted_positions,
                    EqualityDeleteSets equality_deletes, std::vector<std::vector<size_t>> equality_columns,
                    std::vector<std::vector<Type>> equality_types, std::vector<BoundPredicate> filter,
                    std::vector<size_t> filter_columns, bool with_row_positions, std::string path,
                    std::optional<LineageFill> lineage, std::optional<std::vector<int64_t>> wanted)
      : reader_(std::move(reader)),
        projection_(std::move(projection)),
        output_columns_(output_columns),
        output_schema_(std::move(output_schema)),
        deleted_(std::move(deleted_positions)),
        equality_deletes_(std::move(equality_deletes)),
        equality_columns_(std::move(equality_columns)),
        equality_types_(std::move(equality_types)),
        filter_(std::move(filter)),
        filter_columns_(std::move(filter_columns)),
        with_row_positions_(with_row_positions),
        path_(std::move(path)),
        lineage_(std::move(lineage)),
        wanted_(std::move(wanted)) {}

  Result<std::optional<RecordBatch>> Next() override {
    while (next_group_ < reader_->num_row_groups()) {
      const int group = next_group_++;
      RowPositions positions{position_, nullptr};
      position_ += reader_->metadata().row_groups[static_cast<size_t>(group)].num_rows;
      Result<RecordBatch> batch = RecordBatch();
      std::vector<int64_t> group_positions;
      if (wanted_) {
        // The wanted positions in this row group, as rows of it.
        std::vector<int64_t> rows;
        for (; next_wanted_ < wanted_->size() && (*wanted_)[next_wanted_] < position_; ++next_wanted_) {
          group_positions.push_back((*wanted_)[next_wanted_]);
          rows.push_back((*wanted_)[next_wanted_] - positions.first);
        }
        if (rows.empty()) continue;
        positions.listed = &group_positions;
        batch = reader_->ReadRowGroupRows(group, rows, projection_.file_columns());
        if (next_wanted_ == wanted_->size()) next_group_ = reader_->num_row_groups();
      } else {
        batch = reader_->ReadRowGroup(group, projection_.file_columns());
      }
      if (!batch.ok()) return batch.status();
      auto projected = projection_.Project(std::move(*batch));
      if (!projected.ok()) return projected.status().WithContext(path_);
      if (lineage_) FillLineage(*lineage_, positions, &*projected);
      FLOE_ASSIGN_OR_RETURN(RecordBatch live, SelectLive(std::move(*projected), positions));
      if (live.num_rows > 0) return std::optional<RecordBatch>(std::move(live));
    }
    return std::optional<RecordBatch>();
  }

 private:
  Result<RecordBatch> SelectLive(RecordBatch batch, RowPositions positions) {
    std::vector<int64_t> keep;
    keep.reserve(static_cast<size_t>(batch.num_rows));
    auto deleted = std::lower_bound(deleted_.begin(), deleted_.end(), positions[0]);
    size_t set_index = 0;
    std::vector<std::vector<const Column*>> eq_columns;
    for (const auto& indices : equality_columns_) {
      std::vector<const Column*> columns;
      for (size_t i : indices) columns.push_back(&batch.columns[i]);
      eq_columns.push_back(std::move(columns));
    }
    for (int64_t row = 0; row < batch.num_rows; ++row) {
      const int64_t position = positions[row];
      while (deleted != deleted_.end() && *deleted < position) ++deleted;
      if (deleted != deleted_.end() && *deleted == position) continue;
      bool drop = false;
      set_index = 0;
      for (const auto& [ids, keys] : equality_deletes_) {
        FLOE_ASSIGN_OR_RETURN(std::string key,
                              EqualityKey(eq_columns[set_index], equality_types_[set_index], row));
        ++set_index;
        if (keys.count(key) != 0) {
          drop = true;
          break;
        }
      }
      if (drop) continue;
      for (size_t f = 0; f < filter_.size() && !drop; ++f) {
        FLOE_ASSIGN_OR_RETURN(Literal value,
                              LiteralAt(batch.columns[filter_columns_[f]], row, filter_[f].type));
        drop = !EvaluateOn(filter_[f].op, value, filter_[f].value);
      }
      if (!drop) keep.push_back(row);
    }
    RecordBatch out;
    if (static_cast<int64_t>(keep.size()) == batch.num_rows) {
      out = std::move(batch);
    } else {
      FLOE_ASSIGN_OR_RETURN(out, TakeBatchRows(batch, keep));
    }
    out.columns.resize(output_columns_);
    if (with_row_positions_) {
      Column position_column(Int64());
      position_column.values.resize(keep.size() * sizeof(int64_t));
      for (size_t i = 0; i < keep.size(); ++i) {
        const int64_t position = positions[keep[i]];
        std::memcpy(position_column.values.data() + i * sizeof(int64_t), &position, sizeof position);
      }
      position_column.length = static_cast<int64_t>(keep.size());
      out.columns.push_back(std::move(position_column));
    }
    out.schema = output_schema_;
    return out;
  }

  std::unique_ptr<parquet::ParquetFileReader> reader_;
  FileProjection projection_;
  size_t output_columns_;
  floe::Schema output_schema_;
  std::vector<int64_t> deleted_;
  EqualityDeleteSets equality_deletes_;
  std::vector<std::vector<size_t>> equality_columns_;  // per set, batch column indices
  std::vector<std::vector<Type>> equality_types_;
  std::vector<BoundPredicate> filter_;
  std::vector<size_t> filter_columns_;
  bool with_row_positions_;
  std::string path_;
  std::optional<LineageFill> lineage_;
  std::optional<std::vector<int64_t>> wanted_;  // ascending positions; nullopt: every row
  size_t next_wanted_ = 0;
  int next_group_ = 0;
  int64_t position_ = 0;  // of the next row group's first row
};

}  // namespace

bool DeleteApplies(const ScanFile& deletes, const ScanFile& data) {
  const DataFile& d = deletes.file;
  switch (d.content) {
    case DataFileContent::kPositionDeletes:
      if (deletes.data_sequence_number < data.data_sequence_number) return false;
      if (d.referenced_data_file) return *d.referenced_data_file == data.file.file_path;
      return d.spec_id == data.file.spec_id && d.partition == data.file.partition &&
             PathWithinBounds(d, data.file.file_path);
    case DataFileContent::kEqualityDeletes:
      if (deletes.data_sequence_number <= data.data_sequence_number) return false;
      if (d.partition.empty()) return true;  // unpartitioned: global
      return d.spec_id == data.file.spec_id && d.partition == data.file.partition;
    default: return false;
  }
}

Result<Type> PartitionTypeOfSpec(const TableMetadata& metadata, int32_t spec_id, const Schema& preferred) {
  const PartitionSpec* spec = metadata.SpecById(spec_id);
  if (spec == nullptr) {
    return Status::Corruption("partition spec " + std::to_string(spec_id) + " is not in the table metadata");
  }
  auto type = spec->PartitionType(preferred);
  if (type.ok()) return type;
  for (const Schema& schema : metadata.schemas) {
    auto other = spec->PartitionType(schema);
    if (other.ok()) return other;
  }
  return type.status();
}

Result<std::vector<ManifestEntry>> ReadScanManifest(FileIO& io, const TableMetadata& metadata,
                                                    const ManifestFile& manifest, const Schema& schema) {
  auto partition_type = PartitionTypeOfSpec(metadata, manifest.partition_spec_id, schema);
  if (!partition_type.ok()) return partition_type.status().WithContext(manifest.manifest_path);
  FLOE_ASSIGN_OR_RETURN(std::vector<ManifestEntry> entries, ReadManifest(io, manifest, *partition_type));
  for (ManifestEntry& entry : entries) {
    // A delete file of an unpartitioned spec is global.
    if (entry.data_file.content != DataFileContent::kData &&
        !IsPartitionedSpec(metadata, entry.data_file.spec_id)) {
      entry.data_file.partition.clear();
    }
  }
  return entries;
}

Result<std::unique_ptr<TableScan>> TableScan::Make(TableMetadata metadata, std::shared_ptr<FileIO> io,
                                                   ScanOptions options) {
  std::unique_ptr<TableScan> scan(new TableScan());
  scan->metadata_ = std::move(metadata);
  scan->io_ = std::move(io);
  const TableMetadata& m = scan->metadata_;
  const Schema* schema = m.CurrentSchema();
  if (options.snapshot_id) {
    const Snapshot* snapshot = m.SnapshotById(*options.snapshot_id);
    if (snapshot == nullptr) {
      return Status::NotFound("snapshot " + std::to_string(*options.snapshot_id) + " is not in the table");
    }
    scan->snapshot_ = *snapshot;
    if (snapshot->schema_id && m.SchemaById(*snapshot->schema_id) != nullptr) {
      schema = m.SchemaById(*snapshot->schema_id);
    }
  } else if (const Snapshot* current = m.CurrentSnapshot()) {
    scan->snapshot_ = *current;
  }
  if (options.read_schema) schema = &*options.read_schema;
  if (schema == nullptr) return Status::Corruption("table metadata has no current schema");
  scan->schema_ = *schema;
  scan->with_row_positions_ = options.with_row_positions;
  scan->projected_.schema_id = schema->schema_id;
  if (!options.columns) {
    scan->projected_.fields = schema->fields;
  } else {
    for (const std::string& name : *options.columns) {
      const NestedField* found = nullptr;
      for (const NestedField& field : schema->fields) {
        if (field.name == name) found = &field;
      }
      if (found == nullptr)
        return Status::InvalidArgument("column '" + name + "' is not in the table schema");
      scan->projected_.fields.push_back(*found);
    }
  }
  if (options.row_lineage) {
    for (NestedField& field : RowLineageFields()) scan->projected_.fields.push_back(std::move(field));
  }
  scan->row_lineage_ = options.row_lineage;
  FLOE_ASSIGN_OR_RETURN(scan->output_schema_, ToFloeSchema(scan->projected_));
  if (scan->with_row_positions_) {
    scan->output_schema_.push_back(MakeField(kRowPositionColumn, Int64(), false, kDeletePosFieldId));
  }
  for (const Predicate& predicate : options.filter) {
    FLOE_ASSIGN_OR_RETURN(BoundPredicate bound, BindPredicate(predicate, *schema));
    bool top_level = false;
    for (const NestedField& field : schema->fields) top_level = top_level || field.id == bound.field_id;
    if (!top_level) {
      return Status::NotSupported("filter column '" + predicate.column +
                                  "' is nested; filter top-level columns");
    }
    scan->filter_.push_back(std::move(bound));
  }
  return scan;
}

std::optional<int64_t> TableScan::snapshot_id() const {
  if (!snapshot_) return std::nullopt;
  return snapshot_->snapshot_id;
}

Result<std::vector<FileScanTask>> TableScan::PlanFiles() {
  std::vector<FileScanTask> tasks;
  if (!snapshot_) return tasks;
  if (snapshot_->manifest_list.empty()) {
    return Status::NotSupported("snapshot " + std::to_string(snapshot_->snapshot_id) +
                                " lists manifests inline (v1 without a manifest list)");
  }
  FLOE_ASSIGN_OR_RETURN(std::vector<ManifestFile> manifests,
                        ReadManifestList(*io_, snapshot_->manifest_list));
  std::vector<ScanFile> data_files;
  std::vector<ScanFile> delete_files;
  for (const ManifestFile& manifest : manifests) {
    const PartitionSpec* spec = metadata_.SpecById(manifest.partition_spec_id);
    if (spec == nullptr) {
      return Status::Corruption("manifest " + manifest.manifest_path + " uses unknown partition spec " +
                                std::to_string(manifest.partition_spec_id));
    }
    const std::vector<PartitionPredicate> partition_filter =
        ProjectFilterToPartition(filter_, *spec, schema_);
    const bool data_manifest = manifest.content == ManifestContent::kData;
    if (data_manifest && !ManifestMayMatch(partition_filter, manifest)) continue;
    FLOE_ASSIGN_OR_RETURN(std::vector<ManifestEntry> entries,
                          ReadScanManifest(*io_, metadata_, manifest, schema_));
    for (ManifestEntry& entry : entries) {
      if (entry.status == ManifestEntryStatus::kDeleted) continue;
      ScanFile file{std::move(entry.data_file), entry.sequence_number.value_or(0)};
      if (file.file.content == DataFileContent::kData) {
        if (!PartitionMayMatch(partition_filter, file.file.partition)) continue;
        if (!MetricsMayMatch(filter_, file.file)) continue;
        data_files.push_back(std::move(file));
      } else {
        delete_files.push_back(std::move(file));
      }
    }
  }
  for (ScanFile& data : data_files) {
    FileScanTask task;
    for (const ScanFile& deletes : delete_files) {
      if (DeleteApplies(deletes, data)) task.deletes.push_back(deletes);
    }
    task.data = std::move(data);
    tasks.push_back(std::move(task));
  }
  return tasks;
}

Result<std::unique_ptr<TaskReader>> TableScan::Open(const FileScanTask& task) const {
  return OpenTask(task, std::nullopt);
}

Result<std::unique_ptr<TaskReader>> TableScan::OpenPositions(const FileScanTask& task,
                                                             std::vector<int64_t> positions) const {
  for (size_t i = 1; i < positions.size(); ++i) {
    if (positions[i] <= positions[i - 1]) {
      return Status::InvalidArgument(task.data.file.file_path + ": positions to read are not ascending (" +
                                     std::to_string(positions[i - 1]) + " then " +
                                     std::to_string(positions[i]) + ")");
    }
  }
  return OpenTask(task, std::move(positions));
}

Result<std::unique_ptr<TaskReader>> TableScan::OpenTask(const FileScanTask& task,
                                                        std::optional<std::vector<int64_t>> positions) const {
  const DataFile& data = task.data.file;
  if (data.file_format != "PARQUET" && data.file_format != "parquet") {
    return Status::NotSupported("data file " + data.file_path + " has format " + data.file_format +
                                "; only Parquet is supported");
  }
  std::vector<int64_t> deleted;
  EqualityDeleteSets equality_deletes;
  for (const ScanFile& deletes : task.deletes) {
    if (deletes.file.content == DataFileContent::kPositionDeletes) {
      auto positions = ReadPositionDeletes(*io_, deletes.file);
      if (!positions.ok()) return positions.status().WithContext(deletes.file.file_path);
      if (auto it = positions->find(data.file_path); it != positions->end()) {
        deleted.insert(deleted.end(), it->second.begin(), it->second.end());
      }
    } else {
      FLOE_RETURN_IF_ERROR(LoadEqualityDeletes(*io_, deletes.file, schema_, &equality_deletes));
    }
  }
  std::sort(deleted.begin(), deleted.end());
  deleted.erase(std::unique(deleted.begin(), deleted.end()), deleted.end());

  auto file = io_->OpenRead(data.file_path);
  if (!file.ok()) return file.status();
  auto reader = parquet::ParquetFileReader::Open(std::shared_ptr<InputFile>(std::move(*file)));
  if (!reader.ok()) return reader.status();
  floe::Schema file_schema = (*reader)->schema();
  if (!HasAnyFieldId(file_schema)) {
    const std::string mapping_json = metadata_.Property(kNameMappingProperty, "");
    if (!mapping_json.empty()) {
      auto mapping = ParseNameMapping(mapping_json);
      if (!mapping.ok()) return mapping.status();
      ApplyNameMapping(*mapping, &file_schema);
    } else {
      AssignIdsByName(schema_, &file_schema);
    }
  }

  // Read the projected columns plus those the deletes and filters need.
  std::vector<NestedField> read_fields = projected_.fields;
  auto column_of = [&](int32_t id) -> Result<size_t> {
    for (size_t i = 0; i < read_fields.size(); ++i) {
      if (read_fields[i].id == id) return i;
    }
    for (const NestedField& field : schema_.fields) {
      if (field.id == id) {
        read_fields.push_back(field);
        return read_fields.size() - 1;
      }
    }
    return Status::NotSupported("field id " + std::to_string(id) +
                                " is not a top-level column of the table schema");
  };
  std::vector<std::vector<size_t>> equality_columns;
  std::vector<std::vector<Type>> equality_types;
  for (const auto& [ids, keys] : equality_deletes) {
    std::vector<size_t> columns;
    std::vector<Type> types;
    for (int32_t id : ids) {
      FLOE_ASSIGN_OR_RETURN(size_t index, column_of(id));
      columns.push_back(index);
      types.push_back(read_fields[index].type);
    }
    equality_columns.push_back(std::move(columns));
    equality_types.push_back(std::move(types));
  }
  std::vector<size_t> filter_columns;
  for (const BoundPredicate& predicate : filter_) {
    FLOE_ASSIGN_OR_RETURN(size_t index, column_of(predicate.field_id));
    filter_columns.push_back(index);
  }
  auto projection = FileProjection::Make(file_schema, read_fields);
  if (!projection.ok()) return projection.status().WithContext(data.file_path);
  std::optional<LineageFill> lineage;
  if (row_lineage_) {
    // The lineage fields end the projection (Make appended them).
    lineage = LineageFill{projected_.fields.size() - 2, projected_.fields.size() - 1, data.first_row_id,
                          task.data.data_sequence_number};
  }
  return std::unique_ptr<TaskReader>(new ParquetTaskReader(
      std::move(*reader), std::move(*projection), projected_.fields.size(), output_schema_,
      std::move(deleted), std::move(equality_deletes), std::move(equality_columns), std::move(equality_types),
      filter_, std::move(filter_columns), with_row_positions_, data.file_path, std::move(lineage),
      std::move(positions)));
}

}  // namespace floe::iceberg
