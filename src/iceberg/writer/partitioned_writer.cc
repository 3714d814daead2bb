// PartitionedWriter and ComputePartitionTuples (declared in data_file_writer.h).
#include <cstdio>

#include "columnar/column_rows.h"
#include "iceberg/spec/column_literal.h"
#include "iceberg/spec/random_ids.h"
#include "iceberg/writer/data_file_writer.h"

namespace floe::iceberg {

namespace {

// Member indices from a top-level column down to field `id`, through structs
// only (partition sources cannot live inside lists or maps).
bool FindStructPath(const std::vector<NestedField>& fields, int32_t id, std::vector<size_t>* path) {
  for (size_t i = 0; i < fields.size(); ++i) {
    path->push_back(i);
    if (fields[i].id == id) return true;
    if (fields[i].type.kind == TypeKind::kStruct && FindStructPath(fields[i].type.fields, id, path))
      return true;
    path->pop_back();
  }
  return false;
}

// An exact, collision-free encoding of a partition tuple: every member of
// each Literal, lengths before bytes.
std::string TupleKey(const std::vector<Literal>& tuple) {
  std::string key;
  auto append = [&key](const void* bytes, size_t size) { key.append(static_cast<const char*>(bytes), size); };
  for (const Literal& value : tuple) {
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

Result<std::vector<std::vector<Literal>>> ComputePartitionTuples(const Schema& schema,
                                                                 const PartitionSpec& spec,
                                                                 const RecordBatch& batch) {
  std::vector<std::vector<Literal>> tuples(static_cast<size_t>(batch.num_rows));
  for (const PartitionField& field : spec.fields) {
    std::vector<size_t> path;
    if (!FindStructPath(schema.fields, field.source_id, &path)) {
      return Status::InvalidArgument("partition field '" + field.name + "': source id " +
                                     std::to_string(field.source_id) +
                                     " is not a column outside lists and maps");
    }
    if (path[0] >= batch.columns.size())
      return Status::InvalidArgument("batch lacks partition source columns");
    const NestedField* source = schema.FindFieldById(field.source_id);
    for (int64_t row = 0; row < batch.num_rows; ++row) {
      // A null struct on the way makes the source value null.
      const Column* column = &batch.columns[path[0]];
      bool is_null = column->IsNull(row);
      for (size_t depth = 1; depth < path.size() && !is_null; ++depth) {
        if (path[depth] >= column->children.size())
          return Status::InvalidArgument("batch struct lacks members");
        column = &column->children[path[depth]];
        is_null = column->IsNull(row);
      }
      Literal value = Literal::Null();
      if (!is_null) {
        auto source_value = LiteralAt(*column, row, source->type);
        if (!source_value.ok())
          return source_value.status().WithContext("partition field '" + field.name + "'");
        value = std::move(source_value).value();
      }
      auto result = field.transform.Apply(value);
      if (!result.ok()) return result.status().WithContext("partition field '" + field.name + "'");
      tuples[static_cast<size_t>(row)].push_back(std::move(result).value());
    }
  }
  return tuples;
}

PartitionedWriter::PartitionedWriter(FileIO& io, std::string table_location, Schema schema,
                                     PartitionSpec spec, std::optional<std::vector<Literal>> fixed_partition,
                                     RollingWriterOptions options)
    : io_(io),
      table_location_(std::move(table_location)),
      schema_(std::move(schema)),
      spec_(std::move(spec)),
      fixed_partition_(std::move(fixed_partition)),
      options_(std::move(options)) {}

PartitionedWriter::~PartitionedWriter() = default;

Result<std::unique_ptr<PartitionedWriter>> PartitionedWriter::MakeWriter(
    FileIO& io, std::string table_location, const Schema& schema, const PartitionSpec& spec,
    std::optional<std::vector<Literal>> fixed_partition, RollingWriterOptions options) {
  if (options.target_file_size <= 0 || options.rows_per_check <= 0) {
    return Status::InvalidArgument("target file size and rows per check must be positive");
  }
  while (!table_location.empty() && table_location.back() == '/') table_location.pop_back();
  if (options.file_prefix.empty()) options.file_prefix = NewUuidV4();
  options.file.spec_id = spec.spec_id;
  return std::unique_ptr<PartitionedWriter>(new PartitionedWriter(
      io, std::move(table_location), schema, spec, std::move(fixed_partition), std::move(options)));
}

Result<std::unique_ptr<PartitionedWriter>> PartitionedWriter::Make(FileIO& io, std::string table_location,
                                                                   const Schema& schema,
                                                                   const PartitionSpec& spec,
                                                                   RollingWriterOptions options) {
  FLOE_RETURN_IF_ERROR(spec.Validate(schema));
  return MakeWriter(io, std::move(table_location), schema, spec, std::nullopt, std::move(options));
}

Result<std::unique_ptr<PartitionedWriter>> PartitionedWriter::MakeForPartition(
    FileIO& io, std::string table_location, const Schema& schema, const PartitionSpec& spec,
    std::vector<Literal> partition, RollingWriterOptions options) {
  if (partition.size() != spec.fields.size()) {
    return Status::InvalidArgument("partition tuple has " + std::to_string(partition.size()) +
                                   " values, spec " + std::to_string(spec.spec_id) + " " +
                                   std::to_string(spec.fields.size()) + " fields");
  }
  return MakeWriter(io, std::move(table_location), schema, spec, std::move(partition), std::move(options));
}

Result<PartitionedWriter::PartitionFiles*> PartitionedWriter::PartitionFor(
    std::string key, const std::vector<Literal>& tuple) {
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

Status PartitionedWriter::Write(const RecordBatch& batch, std::vector<RowLocation>* locations) {
  if (batch.num_rows == 0) return Status::OK();
  const size_t first = locations ? locations->size() : 0;
  if (locations) locations->resize(first + static_cast<size_t>(batch.num_rows));
  if (fixed_partition_ || spec_.fields.empty()) {
    static const std::vector<Literal> kUnpartitioned;
    const std::vector<Literal>& tuple = fixed_partition_ ? *fixed_partition_ : kUnpartitioned;
    FLOE_ASSIGN_OR_RETURN(PartitionFiles * partition, PartitionFor(TupleKey(tuple), tuple));
    return WriteToPartition(*partition, batch, first, nullptr, locations);
  }
  FLOE_ASSIGN_OR_RETURN(auto tuples, ComputePartitionTuples(schema_, spec_, batch));
  // Rows grouped by tuple, in first-seen order so output is deterministic.
  std::map<std::string, size_t> group_of_key;
  std::vector<std::vector<int64_t>> groups;
  std::vector<const std::string*> group_keys;
  for (int64_t row = 0; row < batch.num_rows; ++row) {
    auto [it, inserted] = group_of_key.emplace(TupleKey(tuples[static_cast<size_t>(row)]), groups.size());
    if (inserted) {
      groups.emplace_back();
      group_keys.push_back(&it->first);
    }
    groups[it->second].push_back(row);
  }
  for (size_t g = 0; g < groups.size(); ++g) {
    std::vector<int64_t>& group = groups[g];
    FLOE_ASSIGN_OR_RETURN(PartitionFiles * partition,
                          PartitionFor(*group_keys[g], tuples[static_cast<size_t>(group[0])]));
    RecordBatch taken;
    const RecordBatch* rows = &batch;
    if (groups.size() > 1) {
      FLOE_ASSIGN_OR_RETURN(taken, TakeBatchRows(batch, group));
      rows = &taken;
    }
    for (int64_t& row : group) row += static_cast<int64_t>(first);  // now slots in *locations
    FLOE_RETURN_IF_ERROR(WriteToPartition(*partition, *rows, 0, &group, locations));
  }
  return Status::OK();
}

Status PartitionedWriter::WriteToPartition(PartitionFiles& partition, const RecordBatch& rows,
                                           size_t first_slot, const std::vector<int64_t>* slots,
                                           std::vector<RowLocation>* locations) {
  for (int64_t begin = 0; begin < rows.num_rows; begin += options_.rows_per_check) {
    const int64_t end = std::min(rows.num_rows, begin + options_.rows_per_check);
    if (!partition.current) {
      char name[32];
      std::snprintf(name, sizeof(name), "-%05d.parquet", static_cast<int>(paths_.size()));
      const std::string path = partition.directory + options_.file_prefix + name;
      FLOE_ASSIGN_OR_RETURN(partition.current,
                            DataFileWriter::Open(io_, path, schema_, partition.tuple, options_.file));
      partition.current_number = static_cast<int32_t>(paths_.size());
      paths_.push_back(path);
      closed_.emplace_back();
    }
    const int64_t start = partition.current->rows_written();
    if (begin == 0 && end == rows.num_rows) {
      FLOE_RETURN_IF_ERROR(partition.current->Write(rows));
    } else {
      FLOE_ASSIGN_OR_RETURN(RecordBatch slice, SliceBatch(rows, begin, end));
      FLOE_RETURN_IF_ERROR(partition.current->Write(slice));
    }
    if (locations) {
      for (int64_t row = begin; row < end; ++row) {
        const size_t slot = slots ? static_cast<size_t>((*slots)[static_cast<size_t>(row)])
                                  : first_slot + static_cast<size_t>(row);
        (*locations)[slot] = RowLocation{partition.current_number, start + (row - begin)};
      }
    }
    if (partition.current->EstimatedFileSize() >= options_.target_file_size) {
      // Buffered rows count before encoding and compression (scaled by the
      // written row groups' ratio when there are some): write them out and
      // decide on what the file really holds, so files close near the
      // target, not at a fraction of it (compaction takes files under
      // 0.75 of the target as small, and would rewrite its own output).
      FLOE_RETURN_IF_ERROR(partition.current->FlushRowGroup());
      if (partition.current->EstimatedFileSize() >= options_.target_file_size) {
        FLOE_RETURN_IF_ERROR(CloseCurrent(partition));
      }
    }
  }
  return Status::OK();
}

Status PartitionedWriter::CloseCurrent(PartitionFiles& partition) {
  auto file = partition.current->Close();
  partition.current.reset();
  if (!file.ok()) return file.status();
  closed_[static_cast<size_t>(partition.current_number)] = std::move(file).value();
  partition.current_number = -1;
  return Status::OK();
}

Result<std::vector<DataFile>> PartitionedWriter::Close() {
  for (auto& [key, partition] : partitions_) {
    if (partition.current) FLOE_RETURN_IF_ERROR(CloseCurrent(partition));
  }
  return closed_;
}

void PartitionedWriter::Abort() {
  for (auto& [key, partition] : partitions_) {
    if (partition.current) partition.current->Abort();
    partition.current.reset();
    partition.current_number = -1;
  }
}

void PartitionedWriter::AbortAndDelete() {
  Abort();
  for (const DataFile& file : closed_) {
    if (!file.file_path.empty()) (void)io_.Delete(file.file_path);
  }
  closed_.clear();
  paths_.clear();
  partitions_.clear();
}

}  // namespace floe::iceberg
