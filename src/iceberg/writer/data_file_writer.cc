#include "iceberg/writer/data_file_writer.h"

#include "iceberg/writer/column_bounds.h"

namespace floe::iceberg {

namespace {

struct LeafField {
  int32_t id = 0;
  Type type;
  bool repeated = false;  // inside a list or map
};

// Leaves in Parquet column-chunk order: depth-first, list element, map key then value.
void CollectLeaves(const NestedField& field, bool repeated, std::vector<LeafField>* out) {
  switch (field.type.kind) {
    case TypeKind::kStruct:
      for (const NestedField& member : field.type.fields) CollectLeaves(member, repeated, out);
      return;
    case TypeKind::kList:
    case TypeKind::kMap:
      for (const NestedField& child : field.type.fields) CollectLeaves(child, true, out);
      return;
    default: out->push_back(LeafField{field.id, field.type, repeated});
  }
}

Status AddBounds(const LeafField& leaf, const parquet::ColumnWriteStats& stats,
                 const DataFileWriterOptions& options, DataFile* file) {
  if (!stats.min || !stats.max) return Status::OK();
  FLOE_ASSIGN_OR_RETURN(std::string lower, ParquetStatisticToSingleValue(*stats.min, leaf.type));
  FLOE_ASSIGN_OR_RETURN(std::string upper, ParquetStatisticToSingleValue(*stats.max, leaf.type));
  std::optional<std::string> truncated_upper = upper;
  if (!options.untruncated_bound_ids.contains(leaf.id)) {
    if (leaf.type.kind == TypeKind::kString) {
      lower = TruncateStringLowerBound(lower, options.bound_length);
      truncated_upper = TruncateStringUpperBound(upper, options.bound_length);
    } else if (leaf.type.kind == TypeKind::kBinary || leaf.type.kind == TypeKind::kFixed) {
      lower = TruncateBinaryLowerBound(lower, options.bound_length);
      truncated_upper = TruncateBinaryUpperBound(upper, options.bound_length);
    }
  }
  file->lower_bounds[leaf.id] = std::move(lower);
  if (truncated_upper) file->upper_bounds[leaf.id] = std::move(*truncated_upper);
  return Status::OK();
}

}  // namespace

Status FillDataFileMetrics(const Schema& schema, const parquet::WrittenParquetFile& written,
                           const DataFileWriterOptions& options, DataFile* file) {
  std::vector<LeafField> leaves;
  for (const NestedField& field : schema.fields) CollectLeaves(field, false, &leaves);
  if (leaves.size() != written.columns.size()) {
    return Status::Internal("schema has " + std::to_string(leaves.size()) + " leaves, the Parquet file " +
                            std::to_string(written.columns.size()) + " columns");
  }
  file->file_size_in_bytes = written.file_size;
  file->record_count = written.num_rows;
  file->split_offsets = written.row_group_offsets;
  for (size_t i = 0; i < leaves.size(); ++i) {
    const LeafField& leaf = leaves[i];
    const parquet::ColumnWriteStats& stats = written.columns[i];
    file->column_sizes[leaf.id] = stats.compressed_bytes;
    file->value_counts[leaf.id] = stats.num_values;
    file->null_value_counts[leaf.id] = stats.null_count;
    if (leaf.type.kind == TypeKind::kFloat || leaf.type.kind == TypeKind::kDouble) {
      file->nan_value_counts[leaf.id] = stats.nan_count;
    }
    // Java keeps no bounds inside lists and maps: a bound there would not
    // describe one value per row.
    if (leaf.repeated) continue;
    Status bounds = AddBounds(leaf, stats, options, file);
    if (!bounds.ok()) return bounds.WithContext("column " + schema.FindNameById(leaf.id));
  }
  return Status::OK();
}

Result<std::unique_ptr<DataFileWriter>> DataFileWriter::Open(FileIO& io, const std::string& path,
                                                             const Schema& schema,
                                                             std::vector<Literal> partition,
                                                             DataFileWriterOptions options) {
  auto floe_schema = ToFloeSchema(schema);
  if (!floe_schema.ok()) return floe_schema.status().WithContext("data file " + path);
  parquet::ParquetWriterOptions parquet_options = options.parquet;
  std::erase_if(parquet_options.key_value_metadata,
                [](const auto& kv) { return kv.key == "iceberg.schema"; });
  parquet::KeyValue schema_entry;
  schema_entry.key = "iceberg.schema";
  schema_entry.value = SchemaToJson(schema).dump();
  parquet_options.key_value_metadata.push_back(std::move(schema_entry));
  auto out = io.Create(path);
  if (!out.ok()) return out.status().WithContext("data file " + path);
  auto writer = parquet::ParquetFileWriter::Open(std::move(out).value(), *floe_schema, parquet_options);
  if (!writer.ok()) return writer.status().WithContext("data file " + path);
  return std::unique_ptr<DataFileWriter>(
      new DataFileWriter(path, schema, std::move(partition), std::move(options), std::move(writer).value()));
}

DataFileWriter::~DataFileWriter() = default;

Status DataFileWriter::Write(const RecordBatch& batch) {
  if (!writer_) return Status::InvalidArgument("data file " + path_ + " is closed");
  return writer_->Write(batch).WithContext("data file " + path_);
}

Result<DataFile> DataFileWriter::Close() {
  if (!writer_) return Status::InvalidArgument("data file " + path_ + " is closed");
  auto written = writer_->Close();
  writer_.reset();
  if (!written.ok()) return written.status().WithContext("data file " + path_);
  DataFile file;
  file.file_path = path_;
  file.file_format = "PARQUET";
  file.spec_id = options_.spec_id;
  file.partition = partition_;
  file.sort_order_id = options_.sort_order_id;
  FLOE_RETURN_IF_ERROR(
      FillDataFileMetrics(schema_, *written, options_, &file).WithContext("data file " + path_));
  return file;
}

void DataFileWriter::Abort() {
  if (writer_) writer_->Abort();
  writer_.reset();
}

int64_t DataFileWriter::rows_written() const {
  return writer_ ? writer_->rows_written() : 0;
}
int64_t DataFileWriter::EstimatedFileSize() const {
  return writer_ ? writer_->EstimatedFileSize() : 0;
}

Status DataFileWriter::FlushRowGroup() {
  if (!writer_) return Status::InvalidArgument("data file writer is closed");
  return writer_->FlushRowGroup();
}

}  // namespace floe::iceberg
