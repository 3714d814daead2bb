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
//   is null (a delete). Without [merge] keys (MergeConfig::KeysFromRecordKey,
//   Debezium from Kafka) the key columns are the members of the unit's
//   record key column (`__record_key`, stream_unit_opener.h: Debezium's key
//   struct), their values still read from after/before so they have the
//   image's types; the first unit bound (or SetKeyColumns: the table's
//   recorded key) fixes them, and a unit whose record key has other fields
//   (ignoring ASCII case and order), none, or a field in neither image does
//   not bind, naming them. The ordering: [merge] order_by, each a dotted path
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
// Immutable but for the adopted record key (guarded by a mutex); bound
// conventions are thread-safe.
#pragma once

#include <mutex>
#include <string>
#include <vector>

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
  bool keys_from_units() const override { return merge_.KeysFromRecordKey(); }
  std::vector<std::string> AdoptedKeyColumns() const override;
  void SetKeyColumns(std::vector<std::string> keys) override;

 private:
  // The key columns of a unit whose record key has `members` (the adopted
  // ones' names and order when they are the same set), or why they are not the key.
  Result<std::vector<std::string>> KeyColumnsOf(const Schema& members) const;
  // `keys` checked against the adopted key (see KeyColumnsOf); with `adopt`,
  // they become the key when none is adopted yet.
  Result<std::vector<std::string>> MatchAdopted(const std::vector<std::string>& keys, bool adopt) const;

  MergeConfig merge_;
  mutable std::mutex adopted_mutex_;
  mutable std::vector<std::string> adopted_;  // record-key mode: the key columns fixed so far
};

}  // namespace floe::ingest
