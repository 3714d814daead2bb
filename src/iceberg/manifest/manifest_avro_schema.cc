#include "iceberg/manifest/manifest_avro_schema.h"

#include <cmath>
#include <cstring>
#include <functional>
#include <optional>
#include <set>
#include <string>

#include "common/bounded_memo.h"
#include "iceberg/spec/single_value.h"

namespace floe::iceberg {

using avro::AvroType;
using avro::AvroValue;
using AJson = avro::Json;

namespace {

AJson Field(const std::string& name, AJson type, int32_t id, const char* doc = nullptr) {
  AJson field = AJson::object();
  field["name"] = name;
  field["type"] = std::move(type);
  if (doc != nullptr) field["doc"] = doc;
  field["field-id"] = id;
  return field;
}

AJson Optional(const std::string& name, AJson type, int32_t id, const char* doc = nullptr) {
  AJson field = AJson::object();
  field["name"] = name;
  field["type"] = AJson::array({"null", std::move(type)});
  if (doc != nullptr) field["doc"] = doc;
  field["default"] = nullptr;
  field["field-id"] = id;
  return field;
}

// A required field that older versions lack: read as `fallback` when absent.
AJson Defaulted(const std::string& name, const char* type, int32_t id, int64_t fallback) {
  AJson field = AJson::object();
  field["name"] = name;
  field["type"] = type;
  field["default"] = fallback;
  field["field-id"] = id;
  return field;
}

AJson Record(const std::string& name, AJson fields) {
  AJson record = AJson::object();
  record["type"] = "record";
  record["name"] = name;
  record["fields"] = std::move(fields);
  return record;
}

// Iceberg's Avro form of map<int, value>: an array of k<key>_v<value> records.
AJson IntKeyedMap(int32_t key_id, int32_t value_id, const char* value_type) {
  AJson array = AJson::object();
  array["type"] = "array";
  array["items"] = Record("k" + std::to_string(key_id) + "_v" + std::to_string(value_id),
                          AJson::array({Field("key", "int", key_id), Field("value", value_type, value_id)}));
  array["logicalType"] = "map";
  return array;
}

AJson ListOf(const char* element_type, int32_t element_id) {
  AJson array = AJson::object();
  array["type"] = "array";
  array["items"] = element_type;
  array["element-id"] = element_id;
  return array;
}

int32_t DecimalRequiredBytes(int32_t precision) {
  for (int32_t bytes = 1; bytes < 16; ++bytes) {
    if (std::pow(2.0L, 8 * bytes - 1) >= std::pow(10.0L, precision)) return bytes;
  }
  return 16;
}

// Named Avro types may be defined once per schema; later uses refer by name.
class NamedTypes {
 public:
  AJson FixedType(const std::string& name, int32_t size, AJson extra) {
    if (!defined_.insert(name).second) return name;
    AJson fixed = AJson::object();
    fixed["type"] = "fixed";
    fixed["name"] = name;
    fixed["size"] = size;
    for (auto& [key, value] : extra.items()) fixed[key] = value;
    return fixed;
  }

 private:
  std::set<std::string> defined_;
};

Result<AJson> PartitionAvroType(const Type& type, NamedTypes& named) {
  auto logical = [](const char* base, const char* logical_type) {
    AJson t = AJson::object();
    t["type"] = base;
    t["logicalType"] = logical_type;
    return t;
  };
  switch (type.kind) {
    case TypeKind::kBoolean: return AJson("boolean");
    case TypeKind::kInt: return AJson("int");
    case TypeKind::kLong: return AJson("long");
    case TypeKind::kFloat: return AJson("float");
    case TypeKind::kDouble: return AJson("double");
    case TypeKind::kString: return AJson("string");
    case TypeKind::kBinary: return AJson("bytes");
    case TypeKind::kDate: return logical("int", "date");
    case TypeKind::kTime: return logical("long", "time-micros");
    case TypeKind::kTimestamp:
    case TypeKind::kTimestampTz: {
      AJson t = logical("long", "timestamp-micros");
      t["adjust-to-utc"] = type.kind == TypeKind::kTimestampTz;
      return t;
    }
    case TypeKind::kTimestampNs:
    case TypeKind::kTimestampTzNs: {
      AJson t = logical("long", "timestamp-nanos");
      t["adjust-to-utc"] = type.kind == TypeKind::kTimestampTzNs;
      return t;
    }
    case TypeKind::kUuid: return named.FixedType("uuid_fixed", 16, AJson{{"logicalType", "uuid"}});
    case TypeKind::kFixed:
      return named.FixedType("fixed_" + std::to_string(type.length), type.length, AJson::object());
    case TypeKind::kDecimal: {
      AJson extra = AJson::object();
      extra["logicalType"] = "decimal";
      extra["precision"] = type.precision;
      extra["scale"] = type.scale;
      return named.FixedType("decimal_" + std::to_string(type.precision) + "_" + std::to_string(type.scale),
                             DecimalRequiredBytes(type.precision), std::move(extra));
    }
    default: break;
  }
  return Status::NotSupported("partition values of type " + type.ToString() + " have no Avro form");
}

Result<AJson> PartitionRecord(const Type& partition_type) {
  if (partition_type.kind != TypeKind::kStruct) {
    return Status::InvalidArgument("partition type must be a struct, got " + partition_type.ToString());
  }
  NamedTypes named;
  AJson fields = AJson::array();
  for (const NestedField& field : partition_type.fields) {
    auto avro_type = PartitionAvroType(field.type, named);
    if (!avro_type.ok()) return avro_type.status().WithContext("partition field '" + field.name + "'");
    fields.push_back(Optional(field.name, std::move(avro_type).value(), field.id));
  }
  return Record("r102", std::move(fields));
}

Result<avro::AvroSchema> Parsed(const AJson& json, const char* what) {
  auto schema = avro::AvroSchema::FromJson(json);
  if (!schema.ok()) return schema.status().WithContext(std::string("building the ") + what + " schema");
  return schema;
}

AJson PartitionSummaryRecord() {
  return Record("r508",
                AJson::array({
                    Field("contains_null", "boolean", 509, "True if any file has a null partition value"),
                    Optional("contains_nan", "boolean", 518, "True if any file has a nan partition value"),
                    Optional("lower_bound", "bytes", 510, "Partition lower bound for all files"),
                    Optional("upper_bound", "bytes", 511, "Partition upper bound for all files"),
                }));
}

AJson PartitionsField() {
  AJson array = AJson::object();
  array["type"] = "array";
  array["items"] = PartitionSummaryRecord();
  array["element-id"] = 508;
  return Optional("partitions", std::move(array), 507, "Summary for each partition");
}

}  // namespace

static Result<avro::AvroSchema> BuildManifestListWriteSchema(int format_version) {
  if (format_version < 1 || format_version > 3) {
    return Status::NotSupported("manifest list format version " + std::to_string(format_version));
  }
  AJson fields = AJson::array();
  fields.push_back(Field("manifest_path", "string", 500, "Location URI with FS scheme"));
  fields.push_back(Field("manifest_length", "long", 501, "Total file size in bytes"));
  fields.push_back(Field("partition_spec_id", "int", 502, "Spec ID used to write"));
  if (format_version == 1) {
    fields.push_back(Optional("added_snapshot_id", "long", 503, "Snapshot ID that added the manifest"));
    fields.push_back(Optional("added_files_count", "int", 504, "Added entry count"));
    fields.push_back(Optional("existing_files_count", "int", 505, "Existing entry count"));
    fields.push_back(Optional("deleted_files_count", "int", 506, "Deleted entry count"));
    fields.push_back(PartitionsField());
    fields.push_back(Optional("added_rows_count", "long", 512, "Added rows count"));
    fields.push_back(Optional("existing_rows_count", "long", 513, "Existing rows count"));
    fields.push_back(Optional("deleted_rows_count", "long", 514, "Deleted rows count"));
    fields.push_back(Optional("key_metadata", "bytes", 519, "Encryption key metadata blob"));
    return Parsed(Record("manifest_file", std::move(fields)), "manifest list");
  }
  fields.push_back(Field("content", "int", 517, "Contents of the manifest: 0=data, 1=deletes"));
  fields.push_back(Field("sequence_number", "long", 515, "Sequence number when the manifest was added"));
  fields.push_back(Field("min_sequence_number", "long", 516, "Lowest sequence number in the manifest"));
  fields.push_back(Field("added_snapshot_id", "long", 503, "Snapshot ID that added the manifest"));
  fields.push_back(Field("added_files_count", "int", 504, "Added entry count"));
  fields.push_back(Field("existing_files_count", "int", 505, "Existing entry count"));
  fields.push_back(Field("deleted_files_count", "int", 506, "Deleted entry count"));
  fields.push_back(Field("added_rows_count", "long", 512, "Added rows count"));
  fields.push_back(Field("existing_rows_count", "long", 513, "Existing rows count"));
  fields.push_back(Field("deleted_rows_count", "long", 514, "Deleted rows count"));
  fields.push_back(PartitionsField());
  fields.push_back(Optional("key_metadata", "bytes", 519, "Encryption key metadata blob"));
  if (format_version >= 3) {
    fields.push_back(
        Optional("first_row_id", "long", 520, "Starting row ID to assign to new rows in ADDED data files"));
  }
  return Parsed(Record("manifest_file", std::move(fields)), "manifest list");
}

static Result<avro::AvroSchema> BuildManifestListReadSchema() {
  AJson fields = AJson::array();
  fields.push_back(Field("manifest_path", "string", 500));
  fields.push_back(Field("manifest_length", "long", 501));
  fields.push_back(Field("partition_spec_id", "int", 502));
  fields.push_back(Defaulted("content", "int", 517, 0));
  fields.push_back(Defaulted("sequence_number", "long", 515, 0));
  fields.push_back(Defaulted("min_sequence_number", "long", 516, 0));
  fields.push_back(Optional("added_snapshot_id", "long", 503));
  fields.push_back(Optional("added_files_count", "int", 504));
  fields.push_back(Optional("existing_files_count", "int", 505));
  fields.push_back(Optional("deleted_files_count", "int", 506));
  fields.push_back(Optional("added_rows_count", "long", 512));
  fields.push_back(Optional("existing_rows_count", "long", 513));
  fields.push_back(Optional("deleted_rows_count", "long", 514));
  fields.push_back(PartitionsField());
  fields.push_back(Optional("key_metadata", "bytes", 519));
  fields.push_back(Optional("first_row_id", "long", 520));
  return Parsed(Record("manifest_file", std::move(fields)), "manifest list read");
}

namespace {

// The data_file fields shared by every version, from column_sizes to key_metadata.
void AppendMetricFields(AJson& fields) {
  fields.push_back(
      Optional("column_sizes", IntKeyedMap(117, 118, "long"), 108, "Map of column id to total size on disk"));
  fields.push_back(Optional("value_counts", IntKeyedMap(119, 120, "long"), 109,
                            "Map of column id to total count, including null and NaN"));
  fields.push_back(Optional("null_value_counts", IntKeyedMap(121, 122, "long"), 110,
                            "Map of column id to null value count"));
  fields.push_back(Optional("nan_value_counts", IntKeyedMap(138, 139, "long"), 137,
                            "Map of column id to number of NaN values in the column"));
  fields.push_back(
      Optional("lower_bounds", IntKeyedMap(126, 127, "bytes"), 125, "Map of column id to lower bound"));
  fields.push_back(
      Optional("upper_bounds", IntKeyedMap(129, 130, "bytes"), 128, "Map of column id to upper bound"));
  fields.push_back(Optional("key_metadata", "bytes", 131, "Encryption key metadata blob"));
  fields.push_back(Optional("split_offsets", ListOf("long", 133), 132, "Splittable offsets"));
}

constexpr const char* kReferencedDataFileDoc =
    "Fully qualified location (URI with FS scheme) of a data file that all deletes reference";

AJson EntryRecord(AJson data_file, bool snapshot_id_required) {
  AJson fields = AJson::array();
  fields.push_back(Field("status", "int", 0));
  fields.push_back(snapshot_id_required ? Field("snapshot_id", "long", 1)
                                        : Optional("snapshot_id", "long", 1));
  if (!snapshot_id_required) {
    fields.push_back(Optional("sequence_number", "long", 3));
    fields.push_back(Optional("file_sequence_number", "long", 4));
  }
  fields.push_back(Field("data_file", std::move(data_file), 2));
  return Record("manifest_entry", std::move(fields));
}

}  // namespace

static Result<avro::AvroSchema> BuildManifestEntryWriteSchema(int format_version,
                                                              const Type& partition_type) {
  if (format_version < 1 || format_version > 3) {
    return Status::NotSupported("manifest format version " + std::to_string(format_version));
  }
  FLOE_ASSIGN_OR_RETURN(AJson partition, PartitionRecord(partition_type));
  AJson fields = AJson::array();
  if (format_version >= 2) {
    fields.push_back(
        Field("content", "int", 134, "Contents of the file: 0=data, 1=position deletes, 2=equality deletes"));
  }
  fields.push_back(Field("file_path", "string", 100, "Location URI with FS scheme"));
  fields.push_back(Field("file_format", "string", 101, "File format name: avro, orc, or parquet"));
  fields.push_back(Field("partition", std::move(partition), 102,
                         "Partition data tuple, schema based on the partition spec"));
  fields.push_back(Field("record_count", "long", 103, "Number of records in the file"));
  fields.push_back(Field("file_size_in_bytes", "long", 104, "Total file size in bytes"));
  if (format_version == 1) fields.push_back(Field("block_size_in_bytes", "long", 105, "Block size in bytes"));
  AppendMetricFields(fields);
  if (format_version >= 2) {
    fields.push_back(Optional("equality_ids", ListOf("int", 136), 135, "Equality comparison field IDs"));
  }
  fields.push_back(Optional("sort_order_id", "int", 140, "Sort order ID"));
  if (format_version >= 3) {
    fields.push_back(
        Optional("first_row_id", "long", 142, "The first row ID assigned to the first row in the data file"));
  }
  if (format_version >= 2) {
    fields.push_back(Optional("referenced_data_file", "string", 143, kReferencedDataFileDoc));
  }
  if (format_version >= 3) {
    fields.push_back(
        Optional("content_offset", "long", 144, "The offset in the file where the content starts"));
    fields.push_back(Optional("content_size_in_bytes", "long", 145,
                              "The length of referenced content stored in the file"));
  }
  return Parsed(EntryRecord(Record("r2", std::move(fields)), format_version == 1), "manifest entry");
}

static Result<avro::AvroSchema> BuildManifestEntryReadSchema(const Type& partition_type) {
  FLOE_ASSIGN_OR_RETURN(AJson partition, PartitionRecord(partition_type));
  AJson fields = AJson::array();
  fields.push_back(Defaulted("content", "int", 134, 0));
  fields.push_back(Field("file_path", "string", 100));
  fields.push_back(Field("file_format", "string", 101));
  fields.push_back(Field("partition", std::move(partition), 102));
  fields.push_back(Field("record_count", "long", 103));
  fields.push_back(Field("file_size_in_bytes", "long", 104));
  AppendMetricFields(fields);
  fields.push_back(Optional("equality_ids", ListOf("int", 136), 135));
  fields.push_back(Optional("sort_order_id", "int", 140));
  fields.push_back(Optional("first_row_id", "long", 142));
  fields.push_back(Optional("referenced_data_file", "string", 143));
  fields.push_back(Optional("content_offset", "long", 144));
  fields.push_back(Optional("content_size_in_bytes", "long", 145));
  return Parsed(EntryRecord(Record("r2", std::move(fields)), false), "manifest entry read");
}

Result<AJson> PartitionValueAvroType(const Type& type) {
  NamedTypes named;
  return PartitionAvroType(type, named);
}

Result<AvroValue> PartitionValueToAvro(const Literal& value, const Type& type) {
  if (value.is_null()) return AvroValue::Null();
  if (!LiteralMatchesType(value, type)) {
    return Status::InvalidArgument("partition value " + value.ToString() + " does not match type " +
                                   type.ToString());
  }
  AvroValue inner;
  switch (type.kind) {
    case TypeKind::kBoolean: inner = AvroValue::Boolean(value.int_value != 0); break;
    case TypeKind::kInt:
    case TypeKind::kDate: inner = AvroValue::Int(static_cast<int32_t>(value.int_value)); break;
    case TypeKind::kLong:
    case TypeKind::kTime:
    case TypeKind::kTimestamp:
    case TypeKind::kTimestampTz:
    case TypeKind::kTimestampNs:
    case TypeKind::kTimestampTzNs: inner = AvroValue::Long(value.int_value); break;
    case TypeKind::kFloat: inner = AvroValue::Float(static_cast<float>(value.double_value)); break;
    case TypeKind::kDouble: inner = AvroValue::Double(value.double_value); break;
    case TypeKind::kString: inner = AvroValue::String(value.bytes); break;
    case TypeKind::kBinary: inner = AvroValue::Bytes(value.bytes); break;
    case TypeKind::kUuid:
    case TypeKind::kFixed:
      inner = AvroValue::Fixed(std::vector<uint8_t>(value.bytes.begin(), value.bytes.end()));
      break;
    case TypeKind::kDecimal: {
      // Fixed of the precision's width: sign-extend the minimal encoding.
      const std::string minimal = DecimalToMinimalBytes(value.unscaled);
      const size_t width = static_cast<size_t>(DecimalRequiredBytes(type.precision));
      if (minimal.size() > width) {
        return Status::OutOfRange("decimal partition value " + value.ToString() + " exceeds precision " +
                                  std::to_string(type.precision));
      }
      const uint8_t fill = (static_cast<uint8_t>(minimal[0]) & 0x80) ? 0xFF : 0x00;
      std::vector<uint8_t> bytes(width - minimal.size(), fill);
      bytes.insert(bytes.end(), minimal.begin(), minimal.end());
      inner = AvroValue::Fixed(std::move(bytes));
      break;
    }
    default: return Status::NotSupported("partition values of type " + type.ToString());
  }
  return inner;
}

Result<Literal> PartitionValueFromAvro(const AvroValue& wrapped, const Type& type) {
  const AvroValue& value = wrapped.Unwrapped();
  if (value.is_null()) return Literal::Null();
  auto bytes_of = [&]() {
    return std::string(reinterpret_cast<const char*>(value.bytes().data()), value.bytes().size());
  };
  auto mismatch = [&]() {
    return Status::Corruption(std::string("partition value of Avro type ") +
                              avro::AvroTypeName(value.kind()) + " does not fit Iceberg type " +
                              type.ToString());
  };
  const bool integral = value.kind() == AvroType::kInt || value.kind() == AvroType::kLong;
  switch (type.kind) {
    case TypeKind::kBoolean:
      if (value.kind() != AvroType::kBoolean) return mismatch();
      return Literal::Boolean(value.boolean());
    case TypeKind::kInt:
    case TypeKind::kDate: {
      if (!integral) return mismatch();
      const int64_t v = value.long_value();
      if (v < INT32_MIN || v > INT32_MAX) return Status::Corruption("partition value out of int range");
      return type.kind == TypeKind::kInt ? Literal::Int(static_cast<int32_t>(v))
                                         : Literal::Date(static_cast<int32_t>(v));
    }
    case TypeKind::kLong:
      if (!integral) return mismatch();
      return Literal::Long(value.long_value());
    case TypeKind::kTime:
      if (!integral) return mismatch();
      return Literal::Time(value.long_value());
    case TypeKind::kTimestamp:
      if (!integral) return mismatch();
      return Literal::Timestamp(value.long_value());
    case TypeKind::kTimestampTz:
      if (!integral) return mismatch();
      return Literal::TimestampTz(value.long_value());
    case TypeKind::kTimestampNs:
      if (!integral) return mismatch();
      return Literal::TimestampNs(value.long_value());
    case TypeKind::kTimestampTzNs:
      if (!integral) return mismatch();
      return Literal::TimestampTzNs(value.long_value());
    case TypeKind::kFloat:
      if (value.kind() != AvroType::kFloat) return mismatch();
      return Literal::Float(value.float_value());
    case TypeKind::kDouble:
      if (value.kind() != AvroType::kFloat && value.kind() != AvroType::kDouble) return mismatch();
      return Literal::Double(value.double_value());
    case TypeKind::kString:
      if (value.kind() == AvroType::kString) return Literal::String(value.string());
      if (value.kind() == AvroType::kBytes) return Literal::String(bytes_of());
      return mismatch();
    case TypeKind::kBinary:
    case TypeKind::kFixed:
    case TypeKind::kUuid: {
      std::string bytes;
      if (value.kind() == AvroType::kBytes || value.kind() == AvroType::kFixed) {
        bytes = bytes_of();
      } else if (value.kind() == AvroType::kString) {
        bytes = value.string();
      } else {
        return mismatch();
      }
      if (type.kind == TypeKind::kBinary) return Literal::Binary(std::move(bytes));
      if (type.kind == TypeKind::kFixed) {
        if (static_cast<int32_t>(bytes.size()) != type.length)
          return Status::Corruption("fixed partition value has the wrong length");
        return Literal::Fixed(std::move(bytes));
      }
      if (bytes.size() != 16) return Status::Corruption("uuid partition value is not 16 bytes");
      return Literal::Uuid(std::move(bytes));
    }
    case TypeKind::kDecimal: {
      if (value.kind() != AvroType::kBytes && value.kind() != AvroType::kFixed) return mismatch();
      auto unscaled = DecimalFromBytes(bytes_of());
      if (!unscaled.ok()) return unscaled.status().WithContext("decimal partition value");
      return Literal::Decimal(*unscaled, type.scale);
    }
    default: break;
  }
  return Status::NotSupported("partition values of type " + type.ToString());
}

Result<AvroValue> RecordFromFieldIds(const avro::AvroNode& record, const ValuesById& values) {
  std::vector<AvroValue> fields;
  fields.reserve(record.fields.size());
  for (const avro::AvroField& field : record.fields) {
    const std::optional<int32_t> id = field.field_id();
    const auto it = id ? values.find(*id) : values.end();
    const avro::AvroNode& type = *field.type;
    if (type.type == AvroType::kUnion) {
      const int null_branch = type.NullBranch();
      if (it == values.end() || it->second.is_null()) {
        if (null_branch < 0) return Status::Internal("no value for non-nullable union field " + field.name);
        fields.push_back(AvroValue::Union(null_branch, AvroValue::Null()));
      } else {
        fields.push_back(AvroValue::Union(null_branch == 0 ? 1 : 0, it->second));
      }
    } else if (it == values.end()) {
      return Status::Internal("no value for required field " + field.name + " of record " + record.name);
    } else {
      fields.push_back(it->second);
    }
  }
  return AvroValue::Record(std::move(fields));
}

// The manifest schemas depend only on the format version and the partition
// type, and every manifest or manifest list written or read asks for one:
// building one (JSON, then parsing it) cost more than reading or writing a
// small manifest's entries, so each is built once per process.
static Result<avro::AvroSchema> Memoized(std::string key,
                                         const std::function<Result<avro::AvroSchema>()>& build) {
  static auto* built =
      new BoundedMemo<std::string, avro::AvroSchema>(256);  // never destroyed: usable during exit
  if (std::optional<avro::AvroSchema> known = built->Find(key)) return *std::move(known);
  FLOE_ASSIGN_OR_RETURN(avro::AvroSchema schema, build());
  built->Add(std::move(key), schema);
  return schema;
}

Result<avro::AvroSchema> ManifestListWriteSchema(int format_version) {
  return Memoized("manifest list write v" + std::to_string(format_version),
                  [&] { return BuildManifestListWriteSchema(format_version); });
}

Result<avro::AvroSchema> ManifestListReadSchema() {
  return Memoized("manifest list read", [] { return BuildManifestListReadSchema(); });
}

Result<avro::AvroSchema> ManifestEntryWriteSchema(int format_version, const Type& partition_type) {
  return Memoized(
      "manifest entry write v" + std::to_string(format_version) + " " + TypeToJson(partition_type).dump(),
      [&] { return BuildManifestEntryWriteSchema(format_version, partition_type); });
}

Result<avro::AvroSchema> ManifestEntryReadSchema(const Type& partition_type) {
  return Memoized("manifest entry read " + TypeToJson(partition_type).dump(),
                  [&] { return BuildManifestEntryReadSchema(partition_type); });
}

}  // namespace floe::iceberg
