// PartitionedWriter and ComputePartitionTuples (declared in data_file_writer.h).
#include <cstring>

#include "iceberg/writer/column_rows.h"
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

Result<Literal> ColumnValue(const Column& column, int64_t row, const Type& type) {
  if (column.IsNull(row)) return Literal::Null();
  switch (type.kind) {
    case TypeKind::kBoolean: return Literal::Boolean(column.Value<uint8_t>(row) != 0);
    case TypeKind::kInt: return Literal::Int(column.Value<int32_t>(row));
    case TypeKind::kLong: return Literal::Long(column.Value<int64_t>(row));
    case TypeKind::kFloat: return Literal::Float(column.Value<float>(row));
    case TypeKind::kDouble: return Literal::Double(column.Value<double>(row));
    case TypeKind::kDate: return Literal::Date(column.Value<int32_t>(row));
    case TypeKind::kTime: return Literal::Time(column.Value<int64_t>(row));
    case TypeKind::kTimestamp: return Literal::Timestamp(column.Value<int64_t>(row));
    case TypeKind::kTimestampTz: return Literal::TimestampTz(column.Value<int64_t>(row));
    case TypeKind::kTimestampNs: return Literal::TimestampNs(column.Value<int64_t>(row));
    case TypeKind::kTimestampTzNs: return Literal::TimestampTzNs(column.Value<int64_t>(row));
    case TypeKind::kString: return Literal::String(std::string(column.StringAt(row)));
    case TypeKind::kBinary: return Literal::Binary(std::string(column.StringAt(row)));
    case TypeKind::kDecimal: return Literal::Decimal(column.Value<Int128>(row), type.scale);
    case TypeKind::kUuid:
    case TypeKind::kFixed: {
      const int32_t width = column.type.fixed_width();
      std::string bytes(reinterpret_cast<const char*>(column.values.data()) + row * width,
                        static_cast<size_t>(width));
      return type.kind == TypeKind::kUuid ? Literal::Uuid(std::move(bytes))
                                          : Literal::Fixed(std::move(bytes));
    }
    default: break;
  }
  return Status::NotSupported("partition source of type " + type.ToString());
}

// An exact, collision-free encoding of a tuple for grouping rows.
std::string TupleKey(const std::vector<Literal>& tuple) {
  std::string key;
  for (const Literal& v : tuple) {
    key.push_back(static_cast<char>(v.kind));
    key.append(reinterpret_cast<const char*>(&v.int_value), sizeof(v.int_value));
    key.append(reinterpret_cast<const char*>(&v.double_value), sizeof(v.double_value));
    key.append(reinterpret_cast<const char*>(&v.unscaled), sizeof(v.unscaled));
    const uint64_t size = v.bytes.size();
    key.append(reinterpret_cast<const char*>(&size), sizeof(size));
    key += v.bytes;
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
        auto source_value = ColumnValue(*column, row, source->type);
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

Result<std::unique_ptr<PartitionedWriter>> PartitionedWriter::Make(FileIO& io, std::string table_location,
                                                                   const Schema& schema,
                                                                   const PartitionSpec& spec,
                                                                   RollingWriterOptions options) {
  FLOE_RETURN_IF_ERROR(spec.Validate(schema));
  return std::unique_ptr<PartitionedWriter>(
      new PartitionedWriter(io, std::move(table_location), schema, spec, std::move(options)));
}

Status PartitionedWriter::Write(const RecordBatch& batch) {
  FLOE_ASSIGN_OR_RETURN(auto tuples, ComputePartitionTuples(schema_, spec_, batch));
  // Rows grouped by tuple, groups in first-seen order.
  std::map<std::string, size_t> group_of_key;
  std::vector<std::vector<int64_t>> groups;
  std::vector<size_t> group_tuple_row;
  for (int64_t row = 0; row < batch.num_rows; ++row) {
    auto [it, inserted] = group_of_key.emplace(TupleKey(tuples[static_cast<size_t>(row)]), groups.size());
    if (inserted) {
      groups.emplace_back();
      group_tuple_row.push_back(static_cast<size_t>(row));
    }
    groups[it->second].push_back(row);
  }
  for (const auto& [key, group] : group_of_key) {
    auto found = writer_index_.find(key);
    if (found == writer_index_.end()) {
      auto options = options_;
      if (!options.file_prefix.empty()) options.file_prefix += "-p" + std::to_string(writers_.size());
      FLOE_ASSIGN_OR_RETURN(auto writer,
                            RollingDataFileWriter::Make(io_, table_location_, schema_, spec_,
                                                        tuples[group_tuple_row[group]], options));
      found = writer_index_.emplace(key, writers_.size()).first;
      writers_.push_back(std::move(writer));
    }
    RollingDataFileWriter& writer = *writers_[found->second];
    if (groups.size() == 1) {
      FLOE_RETURN_IF_ERROR(writer.Write(batch));
    } else {
      FLOE_ASSIGN_OR_RETURN(RecordBatch rows, TakeBatchRows(batch, groups[group]));
      FLOE_RETURN_IF_ERROR(writer.Write(rows));
    }
  }
  return Status::OK();
}

Result<std::vector<DataFile>> PartitionedWriter::Close() {
  std::vector<DataFile> files;
  for (auto& writer : writers_) {
    FLOE_ASSIGN_OR_RETURN(std::vector<DataFile> written, writer->Close());
    for (DataFile& f : written) files.push_back(std::move(f));
  }
  writers_.clear();
  writer_index_.clear();
  return files;
}

void PartitionedWriter::Abort() {
  for (auto& writer : writers_) writer->Abort();
  writers_.clear();
  writer_index_.clear();
}

}  // namespace floe::iceberg
