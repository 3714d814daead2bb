#include "iceberg/scan/delete_loader.h"

#include <algorithm>
#include <cstring>

#include "formats/parquet/file_reader.h"
#include "iceberg/scan/predicate.h"
#include "iceberg/scan/projection.h"
#include "iceberg/spec/column_literal.h"

namespace floe::iceberg {
namespace {

Result<std::unique_ptr<parquet::ParquetFileReader>> OpenDeleteFile(FileIO& io, const DataFile& delete_file) {
  if (delete_file.file_format != "PARQUET" && delete_file.file_format != "parquet") {
    return Status::NotSupported("delete file " + delete_file.file_path + " has format " +
                                delete_file.file_format + "; only Parquet delete files are supported");
  }
  FLOE_ASSIGN_OR_RETURN(std::unique_ptr<InputFile> file, io.OpenRead(delete_file.file_path));
  return parquet::ParquetFileReader::Open(std::shared_ptr<InputFile>(std::move(file)));
}

void AppendKeyPart(const Literal& value, std::string* key) {
  if (value.is_null()) {
    key->push_back('\0');
    return;
  }
  key->push_back('\1');
  auto append_raw = [key](const void* data, size_t size) {
    key->append(static_cast<const char*>(data), size);
  };
  switch (value.kind) {
    case Literal::Kind::kFloat:
    case Literal::Kind::kDouble: {
      const double v = value.double_value == 0 ? 0.0 : value.double_value;  // -0.0 == 0.0
      append_raw(&v, sizeof v);
      break;
    }
    case Literal::Kind::kDecimal:
      append_raw(&value.unscaled, sizeof value.unscaled);
      append_raw(&value.scale, sizeof value.scale);
      break;
    case Literal::Kind::kString:
    case Literal::Kind::kUuid:
    case Literal::Kind::kFixed:
    case Literal::Kind::kBinary: {
      const uint64_t size = value.bytes.size();
      append_raw(&size, sizeof size);
      key->append(value.bytes);
      break;
    }
    default: append_raw(&value.int_value, sizeof value.int_value); break;
  }
}

}  // namespace

Status LoadEqualityDeletes(FileIO& io, const DataFile& delete_file, const Schema& schema,
                           EqualityDeleteSets* sets) {
  if (delete_file.equality_ids.empty()) {
    return Status::Corruption(delete_file.file_path + ": equality delete file has no equality_ids");
  }
  std::vector<NestedField> fields;
  std::vector<Type> types;
  for (int32_t id : delete_file.equality_ids) {
    const NestedField* field = nullptr;
    for (const NestedField& top : schema.fields) {
      if (top.id == id) field = &top;
    }
    if (field == nullptr || !field->type.is_primitive()) {
      return Status::NotSupported(delete_file.file_path + ": equality field id " + std::to_string(id) +
                                  " is not a top-level primitive column of the table schema");
    }
    NestedField optional_field = *field;
    optional_field.required = false;  // delete rows may hold null
    optional_field.initial_default.reset();
    fields.push_back(optional_field);
    types.push_back(field->type);
  }
  auto reader = OpenDeleteFile(io, delete_file);
  if (!reader.ok()) return reader.status().WithContext(delete_file.file_path);
  floe::Schema file_schema = (*reader)->schema();
  if (!HasAnyFieldId(file_schema)) AssignIdsByName(schema, &file_schema);
  FLOE_ASSIGN_OR_RETURN(FileProjection projection, FileProjection::Make(file_schema, fields));
  std::set<std::string>& keys = (*sets)[delete_file.equality_ids];
  for (int g = 0; g < (*reader)->num_row_groups(); ++g) {
    auto batch = (*reader)->ReadRowGroup(g, projection.file_columns());
    if (!batch.ok()) return batch.status().WithContext(delete_file.file_path);
    auto projected = projection.Project(std::move(*batch));
    if (!projected.ok()) return projected.status().WithContext(delete_file.file_path);
    std::vector<const Column*> columns;
    for (const Column& column : projected->columns) columns.push_back(&column);
    for (int64_t row = 0; row < projected->num_rows; ++row) {
      FLOE_ASSIGN_OR_RETURN(std::string key, EqualityKey(columns, types, row));
      keys.insert(std::move(key));
    }
  }
  return Status::OK();
}

Result<std::string> EqualityKey(const std::vector<const Column*>& columns, const std::vector<Type>& types,
                                int64_t row) {
  std::string key;
  for (size_t i = 0; i < columns.size(); ++i) {
    FLOE_ASSIGN_OR_RETURN(Literal value, LiteralAt(*columns[i], row, types[i]));
    AppendKeyPart(value, &key);
  }
  return key;
}

}  // namespace floe::iceberg
