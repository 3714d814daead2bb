// Internal to floe_ingest_merge: building key index runs from an Iceberg
// table (used by PrimaryKeyIndex::Load to rebuild or catch up).
//
// Contract: ScanLiveRows plans the current snapshot with TableScan, reads
// each delete file once (position deletes and deletion vectors), and reads
// the key and ordering columns of every live data file (or only of the
// files in `only`) row group by row group (matched by the table schema's
// field ids, or by name in files without ids; older files may hold a
// narrower promoted type), skipping deleted positions, and hands each live
// row to the sink. Equality deletes are NotSupported. Errors name the data
// file.
//
// SortedRunSpiller sorts what it is given in bounded memory: entries are
// buffered up to `max_buffered`, then sorted (for a key given twice the
// greater ordering value wins and the key counts as a duplicate) and
// written as a run of their own; Finish returns the runs written.
#pragma once

#include <functional>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "iceberg/spec/table_metadata.h"
#include "ingest/merge/key_index.h"
#include "ingest/merge/key_index_run.h"
#include "io/file_io.h"

namespace floe::ingest::key_index_internal {

// Whether `spec`'s key is one integer-like column of `table`'s current schema
// (exact int64 keys) rather than hashed; errors when a column is missing.
Result<bool> KeysAreExactIntegers(const iceberg::TableMetadata& table, const KeyIndexSpec& spec);

using LiveRowSink = std::function<Status(const KeyId& key, const OrderValue& order,
                                         const std::string& data_file, int64_t position)>;

Status ScanLiveRows(const iceberg::TableMetadata& table, FileIO& table_io, const KeyIndexSpec& spec,
                    const std::set<std::string>* only, const LiveRowSink& sink);

// Data files the snapshots `snapshot_ids` of `table` added (ADDED entries of
// the manifests each of them wrote).
Result<std::set<std::string>> DataFilesAddedBy(const iceberg::TableMetadata& table, FileIO& table_io,
                                               const std::set<int64_t>& snapshot_ids);

class SortedRunSpiller {
 public:
  // Runs go to `dir` of `io`; `bloom`: whether they carry a Bloom filter.
  SortedRunSpiller(FileIO& io, std::string dir, size_t max_buffered, bool bloom);
  ~SortedRunSpiller();  // deletes the runs written unless Finish handed them over
  Status Add(const KeyId& key, const OrderValue& order, const std::string& data_file, int64_t position);
  Result<std::vector<std::shared_ptr<const RunReader>>> Finish();
  int64_t duplicate_keys() const { return duplicates_; }

 private:
  Status Spill();

  FileIO& io_;
  std::string dir_;
  size_t max_buffered_;
  bool bloom_;
  std::vector<RunEntry> buffer_;
  std::vector<std::string> files_;
  std::unordered_map<std::string, uint32_t> numbers_;
  uint32_t last_number_ = 0;
  std::vector<std::shared_ptr<const RunReader>> runs_;
  bool finished_ = false;
  int64_t duplicates_ = 0;
};

}  // namespace floe::ingest::key_index_internal
