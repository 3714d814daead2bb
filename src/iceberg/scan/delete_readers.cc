#include "iceberg/scan/delete_readers.h"

#include <algorithm>

#include "columnar/column_rows.h"
#include "formats/parquet/file_reader.h"
#include "iceberg/puffin/deletion_vector.h"

namespace floe::iceberg {

namespace {

Result<std::unique_ptr<parquet::ParquetFileReader>> OpenParquet(FileIO& io, const std::string& path) {
  auto input = io.OpenRead(path);
  if (!input.ok()) return input.status();
  return parquet::ParquetFileReader::Open(std::shared_ptr<InputFile>(std::move(input).value()));
}

// Index of the top-level column with `id`, else the one named `name`, else -1.
int FindColumn(const ::floe::Schema& schema, int32_t id, const std::string& name) {
  for (size_t i = 0; i < schema.size(); ++i) {
    if (schema[i].field_id == id) return static_cast<int>(i);
  }
  for (size_t i = 0; i < schema.size(); ++i) {
    if (!schema[i].field_id && schema[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

}  // namespace

Result<std::map<std::string, std::vector<int64_t>>> ReadPositionDeletes(FileIO& io, const DataFile& file) {
  std::map<std::string, std::vector<int64_t>> deletes;
  if (file.content != DataFileContent::kPositionDeletes) {
    return Status::InvalidArgument(file.file_path + " is not a position delete file");
  }
  if (IsDeletionVector(file)) {
    if (!file.referenced_data_file) {
      return Status::Corruption("deletion vector in " + file.file_path + " lacks referenced_data_file");
    }
    FLOE_ASSIGN_OR_RETURN(deletes[*file.referenced_data_file], ReadDeletionVector(io, file));
    return deletes;
  }
  if (!EqualsIgnoreAsciiCase(file.file_format, "PARQUET"))
    return Status::NotSupported(file.file_path + ": position deletes in " + file.file_format);
  const std::string name = "position delete file " + file.file_path;
  auto reader = OpenParquet(io, file.file_path);
  if (!reader.ok()) return reader.status().WithContext(name);
  const int path_column = FindColumn((*reader)->schema(), kDeleteFilePathFieldId, "file_path");
  const int pos_column = FindColumn((*reader)->schema(), kDeletePosFieldId, "pos");
  if (path_column < 0 || pos_column < 0) return Status::Corruption(name + ": no file_path/pos columns");
  const auto& fields = (*reader)->schema();
  if (!fields[static_cast<size_t>(path_column)].type.is_binary_like() ||
      fields[static_cast<size_t>(pos_column)].type.id != TypeId::kInt64) {
    return Status::Corruption(name + ": file_path must be a string and pos a long");
  }
  for (int g = 0; g < (*reader)->num_row_groups(); ++g) {
    auto batch = (*reader)->ReadRowGroup(g, {path_column, pos_column});
    if (!batch.ok()) return batch.status().WithContext(name);
    const Column& paths = batch->columns[0];
    const Column& positions = batch->columns[1];
    for (int64_t row = 0; row < batch->num_rows; ++row) {
      if (paths.IsNull(row) || positions.IsNull(row)) {
        return Status::Corruption(name + ": null file_path or pos in row group " + std::to_string(g));
      }
      const int64_t pos = positions.Value<int64_t>(row);
      if (pos < 0) return Status::Corruption(name + ": negative pos " + std::to_string(pos));
      deletes[std::string(paths.StringAt(row))].push_back(pos);
    }
  }
  for (auto& [path, positions] : deletes) {
    std::sort(positions.begin(), positions.end());
    positions.erase(std::unique(positions.begin(), positions.end()), positions.end());
  }
  return deletes;
}

Result<RecordBatch> ReadEqualityDeletes(FileIO& io, const DataFile& file, const Schema& table_schema) {
  const std::string name = "equality delete file " + file.file_path;
  if (file.content != DataFileContent::kEqualityDeletes)
    return Status::InvalidArgument(name + ": wrong content");
  if (file.equality_ids.empty()) return Status::Corruption(name + ": no equality_ids");
  auto reader = OpenParquet(io, file.file_path);
  if (!reader.ok()) return reader.status().WithContext(name);
  std::vector<int> columns;
  for (int32_t id : file.equality_ids) {
    const NestedField* field = table_schema.FindFieldById(id);
    if (field == nullptr)
      return Status::Corruption(name + ": equality id " + std::to_string(id) + " is not in the schema");
    const int column = FindColumn((*reader)->schema(), id, field->name);
    if (column < 0) return Status::Corruption(name + ": no column for equality id " + std::to_string(id));
    columns.push_back(column);
  }
  std::vector<RecordBatch> batches;
  for (int g = 0; g < (*reader)->num_row_groups(); ++g) {
    auto batch = (*reader)->ReadRowGroup(g, columns);
    if (!batch.ok()) return batch.status().WithContext(name);
    batches.push_back(std::move(batch).value());
  }
  if (batches.empty()) {
    RecordBatch empty;
    for (int column : columns) {
      empty.schema.push_back((*reader)->schema()[static_cast<size_t>(column)]);
      empty.columns.push_back(MakeEmptyColumn(empty.schema.back().type));
    }
    return empty;
  }
  auto rows = ConcatBatches(batches);
  if (!rows.ok()) return rows.status().WithContext(name);
  return rows;
}

}  // namespace floe::iceberg
