#include "ingest/format/partition_columns.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <limits>
#include <optional>

#include "common/strings.h"
#include "iceberg/spec/literal.h"

namespace floe::ingest {

namespace {

constexpr const char* kHiveNullValue = "__HIVE_DEFAULT_PARTITION__";

// Column names compare as the schema reconciliation matches them: ignoring ASCII case.
bool SameName(std::string_view a, std::string_view b) {
  return EqualsIgnoreAsciiCase(a, b);
}

// One constant column: its type and its single value (or null).
struct ConstantColumn {
  Field field;
  bool null = false;
  int64_t integer = 0;  // int, long, date (days), boolean (0/1)
  double real = 0;
  std::string text;
};

std::optional<int64_t> ParseInteger(std::string_view text) {
  int64_t value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end || text.empty()) return std::nullopt;
  return value;
}

// Days since the epoch of a valid "yyyy-MM-dd".
std::optional<int64_t> ParseDate(std::string_view text) {
  if (text.size() != 10 || text[4] != '-' || text[7] != '-') return std::nullopt;
  auto year = ParseInteger(text.substr(0, 4));
  auto month = ParseInteger(text.substr(5, 2));
  auto day = ParseInteger(text.substr(8, 2));
  if (!year || !month || !day || *month < 1 || *month > 12 || *day < 1 || *day > 31) return std::nullopt;
  const int64_t days =
      iceberg::DaysFromCivil(*year, static_cast<int32_t>(*month), static_cast<int32_t>(*day));
  const iceberg::CivilDate back = iceberg::CivilFromDays(days);
  if (back.month != *month || back.day != *day) return std::nullopt;  // 2023-02-30
  if (days < std::numeric_limits<int32_t>::min() || days > std::numeric_limits<int32_t>::max()) {
    return std::nullopt;
  }
  return days;
}

// The value's type when nothing pins it.
std::string InferType(std::string_view value) {
  if (auto integer = ParseInteger(value)) {
    return *integer >= std::numeric_limits<int32_t>::min() && *integer <= std::numeric_limits<int32_t>::max()
               ? "int"
               : "long";
  }
  if (ParseDate(value)) return "date";
  return "string";
}

Result<ConstantColumn> MakeConstant(const std::string& unit, const std::string& key, const std::string& value,
                                    const std::string& type) {
  ConstantColumn column;
  auto bad = [&]() {
    return Status::InvalidArgument(unit + ": partition folder " + key + "=" + value + " is not a " + type +
                                   " ([source] partition_column_types)");
  };
  column.null = value.empty() || value == kHiveNullValue;
  if (type == "string") {
    column.field = MakeField(key, String());
    column.text = value;
  } else if (type == "int" || type == "long") {
    column.field = MakeField(key, type == "int" ? Int32() : Int64());
    if (!column.null) {
      auto integer = ParseInteger(value);
      if (!integer) return bad();
      if (type == "int" && (*integer < std::numeric_limits<int32_t>::min() ||
                            *integer > std::numeric_limits<int32_t>::max())) {
        return bad();
      }
      column.integer = *integer;
    }
  } else if (type == "date") {
    column.field = MakeField(key, Date());
    if (!column.null) {
      auto days = ParseDate(value);
      if (!days) return bad();
      column.integer = *days;
    }
  } else if (type == "boolean") {
    column.field = MakeField(key, Bool());
    if (!column.null) {
      if (value != "true" && value != "false") return bad();
      column.integer = value == "true" ? 1 : 0;
    }
  } else if (type == "double") {
    column.field = MakeField(key, Float64());
    if (!column.null) {
      double real = 0;
      auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), real);
      if (ec != std::errc() || ptr != value.data() + value.size()) return bad();
      column.real = real;
    }
  } else {
    return Status::InvalidArgument(unit + ": partition column " + key + ": unknown type \"" + type + "\"");
  }
  return column;
}

Column Repeat(const ConstantColumn& constant, int64_t rows) {
  Column column = MakeEmptyColumn(constant.field.type);
  for (int64_t row = 0; row < rows; ++row) {
    if (constant.null) {
      column.AppendNull();
      continue;
    }
    switch (constant.field.type.id) {
      case TypeId::kString: column.AppendBytes(constant.text); break;
      case TypeId::kInt32:
      case TypeId::kDate: column.AppendValue<int32_t>(static_cast<int32_t>(constant.integer)); break;
      case TypeId::kInt64: column.AppendValue<int64_t>(constant.integer); break;
      case TypeId::kBool: column.AppendValue<uint8_t>(static_cast<uint8_t>(constant.integer)); break;
      case TypeId::kFloat64: column.AppendValue<double>(constant.real); break;
      default: column.AppendNull(); break;
    }
  }
  return column;
}

class PartitionColumnsReader final : public formats::ChunkedReader {
 public:
  PartitionColumnsReader(std::unique_ptr<formats::ChunkedReader> inner, std::vector<ConstantColumn> constants)
      : inner_(std::move(inner)), constants_(std::move(constants)), schema_(inner_->schema()) {
    for (const ConstantColumn& constant : constants_) schema_.push_back(constant.field);
  }

  const Schema& schema() const override { return schema_; }
  int num_chunks() const override { return inner_->num_chunks(); }
  int64_t chunk_rows(int chunk) const override { return inner_->chunk_rows(chunk); }
  int64_t chunk_bytes(int chunk) const override { return inner_->chunk_bytes(chunk); }

  Result<RecordBatch> ReadChunk(int chunk, const std::vector<int>& columns) override {
    const int inner_count = static_cast<int>(inner_->schema().size());
    std::vector<int> all;
    const std::vector<int>* wanted = &columns;
    if (columns.empty()) {
      for (int i = 0; i < static_cast<int>(schema_.size()); ++i) all.push_back(i);
      wanted = &all;
    }
    std::vector<int> inner_columns;
    for (int index : *wanted) {
      if (index < 0 || index >= static_cast<int>(schema_.size())) {
        return Status::InvalidArgument("column " + std::to_string(index) + " is not in the unit's " +
                                       std::to_string(schema_.size()) + " columns");
      }
      if (index < inner_count) inner_columns.push_back(index);
    }
    RecordBatch inner;
    if (!inner_columns.empty()) {
      FLOE_ASSIGN_OR_RETURN(inner, inner_->ReadChunk(chunk, inner_columns));
    } else {
      if (chunk < 0 || chunk >= inner_->num_chunks()) {
        return Status::InvalidArgument("chunk " + std::to_string(chunk) + " out of range");
      }
      inner.num_rows = inner_->chunk_rows(chunk);
    }
    RecordBatch out;
    out.num_rows = inner.num_rows;
    size_t next_inner = 0;
    for (int index : *wanted) {
      if (index < inner_count) {
        out.schema.push_back(inner.schema[next_inner]);
        out.columns.push_back(std::move(inner.columns[next_inner]));
        ++next_inner;
      } else {
        const ConstantColumn& constant = constants_[static_cast<size_t>(index - inner_count)];
        out.schema.push_back(constant.field);
        out.columns.push_back(Repeat(constant, out.num_rows));
      }
    }
    return out;
  }

 private:
  std::unique_ptr<formats::ChunkedReader> inner_;
  std::vector<ConstantColumn> constants_;
  Schema schema_;
};

}  // namespace

Result<std::unique_ptr<formats::ChunkedReader>> WithPartitionColumns(
    std::unique_ptr<formats::ChunkedReader> reader, const std::string& unit,
    const std::vector<std::pair<std::string, std::string>>& values,
    const std::map<std::string, std::string>& types) {
  std::vector<ConstantColumn> constants;
  for (const auto& [key, value] : values) {
    bool shadowed = false;
    for (const Field& field : reader->schema()) shadowed = shadowed || SameName(field.name, key);
    for (const ConstantColumn& added : constants) {
      shadowed = shadowed || SameName(added.field.name, key);  // a=1/a=2: the outer one
    }
    if (shadowed) continue;
    auto pinned = types.find(key);
    const std::string type = pinned != types.end() ? pinned->second : InferType(value);
    FLOE_ASSIGN_OR_RETURN(ConstantColumn constant, MakeConstant(unit, key, value, type));
    constants.push_back(std::move(constant));
  }
  if (constants.empty()) return reader;
  return std::unique_ptr<formats::ChunkedReader>(
      new PartitionColumnsReader(std::move(reader), std::move(constants)));
}

}  // namespace floe::ingest
