#include "columnar/types.h"

#include <utility>

namespace floe {

int32_t DataType::fixed_width() const {
  switch (id) {
    case TypeId::kBool:
    case TypeId::kInt8:
    case TypeId::kUInt8: return 1;
    case TypeId::kInt16:
    case TypeId::kUInt16:
    case TypeId::kFloat16: return 2;
    case TypeId::kInt32:
    case TypeId::kUInt32:
    case TypeId::kFloat32:
    case TypeId::kDate: return 4;
    case TypeId::kInt64:
    case TypeId::kUInt64:
    case TypeId::kFloat64:
    case TypeId::kTime:
    case TypeId::kTimestamp: return 8;
    case TypeId::kDecimal:
    case TypeId::kUuid: return 16;
    case TypeId::kFixedBinary: return byte_width;
    default: return 0;
  }
}

static const char* UnitName(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::kMilli: return "ms";
    case TimeUnit::kMicro: return "us";
    case TimeUnit::kNano: return "ns";
  }
  return "?";
}

std::string DataType::ToString() const {
  switch (id) {
    case TypeId::kBool: return "bool";
    case TypeId::kInt8: return "int8";
    case TypeId::kInt16: return "int16";
    case TypeId::kInt32: return "int32";
    case TypeId::kInt64: return "int64";
    case TypeId::kUInt8: return "uint8";
    case TypeId::kUInt16: return "uint16";
    case TypeId::kUInt32: return "uint32";
    case TypeId::kUInt64: return "uint64";
    case TypeId::kFloat16: return "float16";
    case TypeId::kFloat32: return "float32";
    case TypeId::kFloat64: return "float64";
    case TypeId::kDecimal: return "decimal(" + std::to_string(precision) + "," + std::to_string(scale) + ")";
    case TypeId::kDate: return "date";
    case TypeId::kTime: return std::string("time[") + UnitName(unit) + "]";
    case TypeId::kTimestamp: return std::string("timestamp[") + UnitName(unit) + (utc ? ", utc]" : "]");
    case TypeId::kString: return "string";
    case TypeId::kBinary: return "binary";
    case TypeId::kFixedBinary: return "fixed[" + std::to_string(byte_width) + "]";
    case TypeId::kUuid: return "uuid";
    case TypeId::kStruct: {
      std::string s = "struct<";
      for (size_t i = 0; i < children.size(); ++i) {
        if (i) s += ", ";
        s += children[i].name + ": " + children[i].type.ToString();
      }
      return s + ">";
    }
    case TypeId::kList:
      return "list<" + (children.empty() ? std::string("?") : children[0].type.ToString()) + ">";
    case TypeId::kMap:
      return "map<" +
             (children.size() < 2 ? std::string("?")
                                  : children[0].type.ToString() + ", " + children[1].type.ToString()) +
             ">";
  }
  return "?";
}

bool DataType::operator==(const DataType& o) const {
  if (id != o.id) return false;
  switch (id) {
    case TypeId::kDecimal: return precision == o.precision && scale == o.scale;
    case TypeId::kFixedBinary: return byte_width == o.byte_width;
    case TypeId::kTime: return unit == o.unit;
    case TypeId::kTimestamp: return unit == o.unit && utc == o.utc;
    case TypeId::kStruct:
    case TypeId::kList:
    case TypeId::kMap: return children == o.children;
    default: return true;
  }
}

bool Field::operator==(const Field& o) const {
  return name == o.name && type == o.type && nullable == o.nullable && field_id == o.field_id;
}

static DataType Simple(TypeId id) {
  DataType t;
  t.id = id;
  return t;
}

DataType Bool() {
  return Simple(TypeId::kBool);
}
DataType Int8() {
  return Simple(TypeId::kInt8);
}
DataType Int16() {
  return Simple(TypeId::kInt16);
}
DataType Int32() {
  return Simple(TypeId::kInt32);
}
DataType Int64() {
  return Simple(TypeId::kInt64);
}
DataType UInt8() {
  return Simple(TypeId::kUInt8);
}
DataType UInt16() {
  return Simple(TypeId::kUInt16);
}
DataType UInt32() {
  return Simple(TypeId::kUInt32);
}
DataType UInt64() {
  return Simple(TypeId::kUInt64);
}
DataType Float16() {
  return Simple(TypeId::kFloat16);
}
DataType Float32() {
  return Simple(TypeId::kFloat32);
}
DataType Float64() {
  return Simple(TypeId::kFloat64);
}
DataType Decimal(int32_t precision, int32_t scale) {
  DataType t = Simple(TypeId::kDecimal);
  t.precision = precision;
  t.scale = scale;
  return t;
}
DataType Date() {
  return Simple(TypeId::kDate);
}
DataType Time(TimeUnit unit) {
  DataType t = Simple(TypeId::kTime);
  t.unit = unit;
  return t;
}
DataType Timestamp(TimeUnit unit, bool utc) {
  DataType t = Simple(TypeId::kTimestamp);
  t.unit = unit;
  t.utc = utc;
  return t;
}
DataType String() {
  return Simple(TypeId::kString);
}
DataType Binary() {
  return Simple(TypeId::kBinary);
}
DataType FixedBinary(int32_t width) {
  DataType t = Simple(TypeId::kFixedBinary);
  t.byte_width = width;
  return t;
}
DataType Uuid() {
  return Simple(TypeId::kUuid);
}
DataType Struct(std::vector<Field> members) {
  DataType t = Simple(TypeId::kStruct);
  t.children = std::move(members);
  return t;
}
DataType List(Field element) {
  DataType t = Simple(TypeId::kList);
  t.children.push_back(std::move(element));
  return t;
}
DataType Map(Field key, Field value) {
  DataType t = Simple(TypeId::kMap);
  t.children.push_back(std::move(key));
  t.children.push_back(std::move(value));
  return t;
}

Field MakeField(std::string name, DataType type, bool nullable, std::optional<int32_t> field_id) {
  Field f;
  f.name = std::move(name);
  f.type = std::move(type);
  f.nullable = nullable;
  f.field_id = field_id;
  return f;
}

std::string SchemaToString(const Schema& schema) {
  std::string s;
  for (const Field& f : schema) {
    s += f.name + ": " + f.type.ToString() + (f.nullable ? "" : " not null");
    if (f.field_id) s += " (id " + std::to_string(*f.field_id) + ")";
    s += "\n";
  }
  return s;
}

int64_t TicksPerSecond(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::kMilli: return 1000;
    case TimeUnit::kMicro: return 1000000;
    case TimeUnit::kNano: return 1000000000;
  }
  return 1;
}

}  // namespace floe
