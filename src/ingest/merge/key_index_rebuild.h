// Internal to floe_ingest_merge: rebuilding a PrimaryKeyIndex's live entries
// from an Iceberg table (used by PrimaryKeyIndex::Load).
//
// Contract: RebuildLiveEntries plans the current snapshot with TableScan,
// reads each delete file once (position deletes and deletion vectors), and
// reads every live data file's key and ordering columns row group by row
// group (matched by the table schema's field ids, or by name in files
// without ids; older files may hold a narrower promoted type), skipping
// deleted positions. Equality deletes are NotSupported. Two live rows with
// one key keep the greater ordering value and add a warning. Errors name the
// data file.
#pragma once

#include <string>
#include <vector>

#include "iceberg/spec/table_metadata.h"
#include "ingest/merge/key_index.h"
#include "io/file_io.h"

namespace floe::ingest::key_index_internal {

// Whether `spec`'s key is one integer-like column of `table`'s current schema
// (exact int64 keys) rather than hashed; errors when a column is missing.
Result<bool> KeysAreExactIntegers(const iceberg::TableMetadata& table, const KeyIndexSpec& spec);

Result<PrimaryKeyIndex> RebuildLiveEntries(const iceberg::TableMetadata& table, FileIO& table_io,
                                           const KeyIndexSpec& spec, std::vector<std::string>* warnings);

}  // namespace floe::ingest::key_index_internal
