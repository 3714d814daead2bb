// DebeziumChanges: the change convention "debezium" — rows that are
// Debezium change events, as Debezium Server writes them to files and the
// JSON converter writes them to Kafka: {"before": {...}, "after": {...},
// "source": {...}, "op": "c", "ts_ms": ...}, or the same inside the JSON
// converter's {"schema": ..., "payload": {...}} wrapper.
//
// Contract (see change_convention.h):
// - Bind finds the envelope: a struct column `payload` holding `op` (the
//   wrapper), else the unit's own top-level columns. It needs a string `op`
//   and at least one of `before` / `after` as a struct; a missing or
//   non-struct `after` (a file of deletes only, whose `after` is null
//   throughout) reads as null.
// - Operations by [merge] codes; the parser's defaults are Debezium's: c
//   and r (snapshot reads) insert, u updates, d deletes, t (truncate) and m
//   (logical decoding messages) are ignored (a truncate does not empty the
//   table: documented).
// - The key: [merge] keys, read from `after`, or from `before` where `after`
//   is null (a delete). The ordering: [merge] order_by, each a dotted path
//   inside the envelope ("source.ts_ms", "source.lsn", "ts_ms"); equal
//   values keep file and row order (the later row wins within a batch).
// - Bad rows (the caller's [schema] on_bad_row decides): a null or unknown
//   op, an insert or update without an `after` struct, a null key or
//   ordering value, a null `payload`.
// - The row image is the `after` struct's members (the table's columns),
//   then each ordering value as a column named after its path
//   (TableOrderColumnName: "source.lsn" -> `__source_lsn`), which the key
//   index reads back from the table; a unit whose `after` is not a struct
//   images `before`'s members, which only deletes use. The rest of
//   Debezium's metadata (op, source) is not part of the image.
// Immutable; bound conventions are thread-safe.
#pragma once

#include <string>

#include "ingest/changes/change_convention.h"
#include "ingest/config/config.h"

namespace floe::ingest {

// "__" + the path with dots as underscores: "source.ts_ms" -> "__source_ts_ms".
std::string TableOrderColumnName(const std::string& path);

class DebeziumChanges final : public ChangeConvention {
 public:
  explicit DebeziumChanges(MergeConfig merge) : merge_(std::move(merge)) {}
  const char* name() const override { return "debezium"; }
  bool merges() const override { return true; }
  Result<std::unique_ptr<BoundChanges>> Bind(const Schema& unit_schema) const override;
  // [merge] order_by with each path renamed to its image column.
  OrderingSpec table_ordering() const override;
  bool rows_are_image() const override { return false; }

 private:
  MergeConfig merge_;
};

}  // namespace floe::ingest
