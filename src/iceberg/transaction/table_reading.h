// Reading a table's file sets: what a snapshot's manifests hold.
//
// Contract: partition tuples are typed with the spec's partition type over
// the current schema, falling back to older schemas when a source column has
// since been dropped; a spec id the table does not know is Corruption.
#pragma once

#include <vector>

#include "common/status.h"
#include "iceberg/manifest/manifest_types.h"
#include "iceberg/spec/table_metadata.h"
#include "io/file_io.h"

namespace floe::iceberg {

Result<Type> PartitionTypeForSpec(const TableMetadata& metadata, int32_t spec_id);

// Every live data and delete file of a snapshot (ADDED and EXISTING entries
// of its manifests), with inherited snapshot ids and sequence numbers filled in.
Result<std::vector<ManifestEntry>> LiveEntries(FileIO& io, const TableMetadata& metadata,
                                               const Snapshot& snapshot);

}  // namespace floe::iceberg
