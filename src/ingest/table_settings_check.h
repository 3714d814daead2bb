// Keeping an existing table and the pipeline's settings for it in step,
// before a batch writes to it: the merge key recorded in the table, the
// partition spec, and other pipelines writing to the same table.
//
// Contract:
// - RecordKeyInSchema marks the [merge] keys of a table about to be created
//   as its Iceberg identifier fields (identifier-field-ids; the columns
//   become required, which they are for every row floe writes: a row with a
//   null key is never a change). A key column that cannot be an identifier
//   field (float, double, nested) is left out of them, and the reason
//   returned.
// - CheckRecordedKey refuses, naming the table, both key lists and how to
//   migrate, a merge key that differs (ignoring ASCII case and order) from
//   the table's identifier fields: merging by another key leaves duplicate
//   keys. A table without identifier fields (created by floe before it
//   recorded keys, or by another tool) is not checked.
// - EvolvePartitionSpec makes the table's default partition spec the one
//   [target] partition_by describes (Iceberg partition evolution: a new spec
//   for new data; files already written keep theirs, deletes follow each
//   data file's spec), committing the change alone; returns a one-line
//   description of the change, or "" when the spec already matches. Fields
//   compare by source column and transform. A partition_by that names a
//   column the table lacks is an error naming it.
// - OtherPipelines lists the floe.pipeline names other than `pipeline` in
//   the summaries of the table's snapshots (newest first, each once): two
//   pipelines merging into one table each keep their own key index and
//   ledger, and neither sees the other's changes as its own.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "iceberg/spec/schema.h"
#include "iceberg/spec/table_metadata.h"
#include "iceberg/transaction/table.h"

namespace floe::ingest {

// `schema` is the new table's schema (in place); returns "" or why some key is not an identifier field.
std::string RecordKeyInSchema(const std::vector<std::string>& keys, iceberg::Schema* schema);

// The merge key floe recorded in `table`: its floe.merge.keys property (every
// key, in order), else its identifier fields; empty when it records none.
std::vector<std::string> RecordedKey(const iceberg::TableMetadata& table);

Status CheckRecordedKey(const iceberg::TableMetadata& table, const std::vector<std::string>& keys,
                        const std::string& table_name);

Result<std::string> EvolvePartitionSpec(iceberg::Table& table, const std::vector<std::string>& partition_by);

std::vector<std::string> OtherPipelines(const iceberg::TableMetadata& table, const std::string& pipeline);

}  // namespace floe::ingest
