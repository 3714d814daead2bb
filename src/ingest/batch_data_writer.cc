#include "ingest/batch_data_writer.h"

#include <cstdio>

#include "iceberg/writer/column_rows.h"

namespace floe::ingest {

namespace {

// An exact, collision-free encoding of a partition tuple.
std::string TupleKey(const std::vector<iceberg::Literal>& tuple) {
  std::string key;
  auto append = [&key](const void* bytes, size_t size) { key.append(static_cast<const char*>(bytes), size); };
  for (const iceberg::Literal& value : tuple) {
    key.push_back(static_cast<char>(value.kind));
    append(&value.int_value, sizeof(value.int_value));
    append(&value.double_value, sizeof(value.double_value));
    append(&value.unscaled, sizeof(value.unscaled));
    append(&value.scale, sizeof(value.scale));
    const uint64_t size = value.bytes.size();
    append(&size, sizeof(size));
    key += value.bytes;
  }
  return key;
}

}  // namespace

BatchDataWriter::BatchDataWriter(FileIO& io, std::string table_location, iceberg::Schema schema,
                                 iceberg::PartitionSpec spec, BatchDataWriterOptions options)
    : io_(io),
      table_location_(std::move(table_location)),
      schema_(std::move(schema)),
      spec_(std::move(spec)),
      options_(std::move(options)) {}

BatchDataWriter::~BatchDataWriter() = default;

Result<std::unique_ptr<BatchDataWriter>> BatchDataWriter::Make(FileIO& io, std::string table_location,
                                                               iceberg::Schema schema,
                                                               iceberg::PartitionSpec spec,
                                                               BatchDataWriterOptions options) {
  if (options.target_file_size <= 0 || options.rows_per_check <= 0) {
    return Status::InvalidArgument("target file size and rows per check must be positive");
  }
  if (options.file_prefix.empty()) return Status::InvalidArgument("data file prefix is empty");
  FLOE_RETURN_IF_ERROR(spec.Validate(schema));
  while (!table_location.empty() && table_location.back() == '/') table_location.pop_back();
  options.file.spec_id = spec.spec_id;
  return std::unique_ptr<BatchDataWriter>(new BatchDataWriter(
      io, std::move(table_location), std::move(schema), std::move(spec), std::move(options)));
}

Result<BatchDataWriter::PartitionFiles*> BatchDataWriter::PartitionFor(
    const std::vector<iceberg::Literal>& tuple) {
  std::string key = TupleKey(tuple);
  auto it = partitions_.find(key);
  if (it != partitions_.end()) return &it->second;
  PartitionFiles files;
  files.tuple = tuple;
  files.directory = table_location_ + "/data/";
  if (!spec_.fields.empty()) {
    FLOE_ASSIGN_OR_RETURN(std::string partition_path, spec_.PartitionPath(tuple));
    files.directory += partition_path + "/";
  }
  return &partitions_.emplace(std::move(key), std::move(files)).first->second;
}

Status BatchDataWriter::Write(const RecordBatch& batch, std::vector<RowLocation>* locations) {
  if (batch.num_rows == 0) return Status::OK();
  const size_t first = locations->size();
  locations->resize(first + static_cast<size_t>(batch.num_rows));
  if (spec_.fields.empty()) {
    FLOE_ASSIGN_OR_RETURN(PartitionFiles * partition, PartitionFor({}));
    return WriteToPartition(*partition, batch, first, nullptr, locations);
  }
  FLOE_ASSIGN_OR_RETURN(auto tuples, iceberg::ComputePartitionTuples(schema_, spec_, batch));
  // Rows grouped by tuple, in first-seen order so output is deterministic.
  std::map<std::string, size_t> group_of_key;
  std::vector<std::vector<int64_t>> groups;
  for (int64_t row = 0; row < batch.num_rows; ++row) {
    auto [it, inserted] = group_of_key.emplace(TupleKey(tuples[static_cast<size_t>(row)]), groups.size());
    if (inserted) groups.emplace_back();
    groups[it->second].push_back(row);
  }
  for (std::vector<int64_t>& group : groups) {
    FLOE_ASSIGN_OR_RETURN(PartitionFiles * partition, PartitionFor(tuples[static_cast<size_t>(group[0])]));
    RecordBatch taken;
    const RecordBatch* rows = &batch;
    if (groups.size() > 1) {
      FLOE_ASSIGN_OR_RETURN(taken, iceberg::TakeBatchRows(batch, group));
      rows = &taken;
    }
    for (int64_t& row : group) row += static_cast<int64_t>(first);  // now slots in *locations
    FLOE_RETURN_IF_ERROR(WriteToPartition(*partition, *rows, 0, &group, locations));
  }
  return Status::OK();
}

Status BatchDataWriter::WriteToPartition(PartitionFiles& partition, const RecordBatch& rows,
                                         size_t first_slot, const std::vector<int64_t>* slots,
                                         std::vector<RowLocation>* locations) {
  for (int64_t begin = 0; begin < rows.num_rows; begin += options_.rows_per_check) {
    const int64_t end = std::min(rows.num_rows, begin + options_.rows_per_check);
    if (!partition.current) {
      char name[32];
      std::snprintf(name, sizeof(name), "-%05d.parquet", static_cast<int>(paths_.size()));
      const std::string path = partition.directory + options_.file_prefix + name;
      FLOE_ASSIGN_OR_RETURN(partition.current, iceberg::DataFileWriter::Open(io_, path, schema_,
                                                                             partition.tuple, options_.file));
      partition.current_number = static_cast<int32_t>(paths_.size());
      paths_.push_back(path);
      closed_.emplace_back();
    }
    const int64_t start = partition.current->rows_written();
    if (begin == 0 && end == rows.num_rows) {
      FLOE_RETURN_IF_ERROR(partition.current->Write(rows));
    } else {
      FLOE_ASSIGN_OR_RETURN(RecordBatch slice, iceberg::SliceBatch(rows, begin, end));
      FLOE_RETURN_IF_ERROR(partition.current->Write(slice));
    }
    for (int64_t row = begin; row < end; ++row) {
      const size_t slot = slots ? static_cast<size_t>((*slots)[static_cast<size_t>(row)])
                                : first_slot + static_cast<size_t>(row);
      (*locations)[slot] = RowLocation{partition.current_number, start + (row - begin)};
    }
    if (partition.current->EstimatedFileSize() >= options_.target_file_size) {
      FLOE_RETURN_IF_ERROR(CloseCurrent(partition));
    }
  }
  return Status::OK();
}

Status BatchDataWriter::CloseCurrent(PartitionFiles& partition) {
  auto file = partition.current->Close();
  partition.current.reset();
  if (!file.ok()) return file.status();
  closed_[static_cast<size_t>(partition.current_number)] = std::move(file).value();
  partition.current_number = -1;
  return Status::OK();
}

Result<std::vector<iceberg::DataFile>> BatchDataWriter::Close() {
  for (auto& [key, partition] : partitions_) {
    if (partition.current) FLOE_RETURN_IF_ERROR(CloseCurrent(partition));
  }
  return closed_;
}

void BatchDataWriter::AbortAndDelete() {
  for (auto& [key, partition] : partitions_) {
    if (partition.current) partition.current->Abort();
    partition.current.reset();
  }
  for (const iceberg::DataFile& file : closed_) {
    if (!file.file_path.empty()) (void)io_.Delete(file.file_path);
  }
  closed_.clear();
  paths_.clear();
  partitions_.clear();
}

}  // namespace floe::ingest
