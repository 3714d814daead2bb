// TableOperations: the commit boundary between table actions and a catalog.
//
// Contract: Load returns the table's current metadata and where it was read
// from. Commit atomically applies `updates` if every requirement holds for
// the table's current metadata and returns the new state. It returns
// CommitFailed (retryable) when a requirement fails or a concurrent commit
// won the race — nothing changed, the caller reloads and retries — and
// CommitStateUnknown when the outcome cannot be known: the caller must then
// delete nothing it wrote. Implementations are used from one thread at a time.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "iceberg/spec/table_metadata.h"
#include "iceberg/transaction/table_update.h"
#include "io/file_io.h"

namespace floe::iceberg {

struct LoadedTable {
  TableMetadata metadata;
  std::string metadata_location;
};

class TableOperations {
 public:
  virtual ~TableOperations() = default;
  virtual Result<LoadedTable> Load() = 0;
  virtual Result<LoadedTable> Commit(const std::vector<TableRequirement>& requirements,
                                     const std::vector<TableUpdate>& updates) = 0;
  // Where the table's data, manifests and manifest lists are read and written.
  virtual FileIO& io() = 0;
  // The table's name for messages ("db.events").
  virtual std::string name() const = 0;
};

}  // namespace floe::iceberg
