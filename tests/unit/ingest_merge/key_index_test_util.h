// What the key index tests (and bench/micro/key_index_bench.cc) share: a
// table that has snapshots but no files, so PrimaryKeyIndex::Load must use
// the index's own files (a rebuild fails: its manifest lists do not exist).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "iceberg/spec/table_metadata.h"
#include "ingest/merge/key_index.h"

namespace floe::ingest::key_index_testing {

// Columns id (long), seq (string), name (string); snapshots `chain` in
// order, each the parent of the next, the last current, each of `operation`.
inline iceberg::TableMetadata TableWithSnapshots(const std::vector<int64_t>& chain,
                                                 const std::string& operation = "append") {
  iceberg::TableMetadata t;
  t.location = "/nonexistent/table";
  iceberg::Schema schema;
  schema.fields.push_back(
      iceberg::MakeNestedField(1, "id", iceberg::PrimitiveType(iceberg::TypeKind::kLong), true));
  schema.fields.push_back(
      iceberg::MakeNestedField(2, "seq", iceberg::PrimitiveType(iceberg::TypeKind::kString), false));
  schema.fields.push_back(
      iceberg::MakeNestedField(3, "name", iceberg::PrimitiveType(iceberg::TypeKind::kString), false));
  t.schemas.push_back(schema);
  std::optional<int64_t> parent;
  int64_t seq = 0;
  for (int64_t id : chain) {
    iceberg::Snapshot s;
    s.snapshot_id = id;
    s.parent_snapshot_id = parent;
    s.sequence_number = ++seq;
    s.manifest_list = "/nonexistent/table/metadata/snap-" + std::to_string(id) + ".avro";
    s.summary["operation"] = operation;
    t.snapshots.push_back(s);
    parent = id;
  }
  t.current_snapshot_id = parent;
  return t;
}

// Snapshots 1..last.
inline iceberg::TableMetadata TableWithSnapshotsUpTo(int64_t last, const std::string& operation = "append") {
  std::vector<int64_t> chain;
  for (int64_t id = 1; id <= last; ++id) chain.push_back(id);
  return TableWithSnapshots(chain, operation);
}

// The index spec of that table: key id, ordered by seq (padded hex).
inline KeyIndexSpec IdSpec() {
  return KeyIndexSpec{{"id"}, "seq", OrderingKind::kPaddedHex};
}

}  // namespace floe::ingest::key_index_testing
