// Builders of raw columns, as record decoders hand them to the Connect
// conversion, for the connect tests.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "column_builders.h"
#include "columnar/column.h"

namespace floe::connect::testing {

inline Column Longs(const std::vector<std::optional<int64_t>>& values) {
  return floe::testing::MakeColumn<int64_t>(Int64(), values);
}
inline Column Ints(const std::vector<std::optional<int32_t>>& values) {
  return floe::testing::MakeColumn<int32_t>(Int32(), values);
}
inline Column Doubles(const std::vector<std::optional<double>>& values) {
  return floe::testing::MakeColumn<double>(Float64(), values);
}
inline Column Strings(const std::vector<std::optional<std::string>>& values) {
  return floe::testing::MakeStrings(String(), values);
}
inline Column Binaries(const std::vector<std::optional<std::string>>& values) {
  return floe::testing::MakeStrings(Binary(), values);
}

// A struct column from member columns of equal length; `valid` marks the
// rows where the struct itself is not null (empty: all valid).
inline Column StructOf(std::vector<std::pair<std::string, Column>> members,
                       const std::vector<bool>& valid = {}) {
  std::vector<Field> fields;
  for (const auto& [name, column] : members) fields.push_back(MakeField(name, column.type));
  Column c(Struct(fields));
  const int64_t length = members.empty() ? 0 : members[0].second.length;
  for (auto& [name, column] : members) c.children.push_back(std::move(column));
  for (int64_t i = 0; i < length; ++i) {
    if (!valid.empty() && !valid[static_cast<size_t>(i)]) {
      if (c.validity.empty()) {
        c.validity.assign(static_cast<size_t>((length + 7) / 8), 0xff);
      }
      c.validity[static_cast<size_t>(i >> 3)] &= static_cast<uint8_t>(~(1u << (i & 7)));
      ++c.null_count;
    }
  }
  c.length = length;
  return c;
}

// A list column of `element` values cut at `offsets` (length + 1 entries).
inline Column ListOf(Column element, std::vector<int64_t> offsets) {
  Column c(List(MakeField("element", element.type)));
  c.offsets = std::move(offsets);
  c.length = static_cast<int64_t>(c.offsets.size()) - 1;
  c.children.push_back(std::move(element));
  return c;
}

// The row image the customers test tables of schema_test.cc (JSON converter)
// and avro_schema_test.cc (Avro converter) both map to.
inline Schema CustomersRowSchema() {
  return {
      MakeField("id", Int32(), false),      MakeField("first_name", String(), false),
      MakeField("balance", Decimal(12, 2)), MakeField("created_at", Timestamp(TimeUnit::kMicro, false)),
      MakeField("birth_date", Date()),      MakeField("updated_at", Timestamp(TimeUnit::kMicro, true)),
      MakeField("external_id", Uuid()),     MakeField("prefs", String()),
      MakeField("score", String()),         MakeField("tags", List(MakeField("element", String()))),
      MakeField("level", Int16()),          MakeField("active", Bool()),
  };
}

}  // namespace floe::connect::testing
