// `schema_hints`: column types a user fixes instead of inferring them, e.g.
// "amount DECIMAL(12,2), created_at TIMESTAMP, address.zip STRING".
//
// Contract:
// - A hint is a column name (a dotted path names a struct member; a part in
//   backquotes may hold any character, `` is a literal backquote) and a
//   type. Type names are case-insensitive Iceberg or SQL names:
//   boolean/bool, tinyint/byte (int8), smallint/short (int16), int/integer,
//   long/bigint, float/real, double, decimal(p,s)/numeric(p,s), date, time,
//   timestamp/timestamp_ntz/datetime (without zone), timestamptz/
//   timestamp_ltz (with zone), timestamp_ns/timestamptz_ns (nanoseconds),
//   string/varchar[(n)]/text/char[(n)], uuid, binary/bytes/blob/varbinary,
//   fixed[n]/fixed(n), and nested struct<name: type, ...>, list<type>/
//   array<type>, map<key type, value type>. Timestamps and times are in
//   microseconds unless named _ns.
// - Parsing errors are InvalidArgument naming the hint and the position.
// - A hint replaces the inferred type of the column it names wherever the
//   column appears; hints for columns the data lacks are ignored.
// SchemaHints is immutable after Parse and safe to share between threads.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "columnar/types.h"
#include "common/status.h"

namespace floe::formats {

struct SchemaHint {
  std::vector<std::string> path;  // {"address", "zip"} for address.zip
  DataType type;
};

class SchemaHints {
 public:
  SchemaHints() = default;
  static Result<SchemaHints> Parse(std::string_view text);

  bool empty() const { return hints_.empty(); }
  // One more hint (the pipeline adds the table's column types after the user's).
  void Add(SchemaHint hint) { hints_.push_back(std::move(hint)); }
  const std::vector<SchemaHint>& hints() const { return hints_; }

  // The hinted type of the column at `path` (top-level name first), or nullptr.
  const DataType* Find(const std::vector<std::string>& path) const;
  const DataType* FindTopLevel(std::string_view name) const;
  // Whether any hint names a member below `path` (so inference of a struct
  // at `path` must consult hints for its members).
  bool HasHintsBelow(const std::vector<std::string>& path) const;

  // Replaces the types of the hinted columns of `schema` (recursively, into
  // struct members; a hint on a list element or map value is not supported:
  // name the list column itself).
  void Apply(Schema* schema) const;

 private:
  std::vector<SchemaHint> hints_;
};

// Parses one type name as above ("decimal(12,2)", "list<string>").
Result<DataType> ParseTypeName(std::string_view text);

}  // namespace floe::formats
