// Table: the façade for changing an Iceberg table through TableOperations.
//
// Contract: a Table caches the metadata it last loaded or committed; each
// New*() action starts from that state, commits with retries (policy from the
// table's commit.retry.* properties) and on success makes the Table show the
// committed state. Actions hold a reference to their Table, which must
// outlive them. Not thread-safe: use one Table per thread.
//
//   FLOE_ASSIGN_OR_RETURN(Table table, Table::Load(ops));
//   FLOE_RETURN_IF_ERROR(table.NewFastAppend().AppendFile(f).Set("floe.batch-id", "7").Commit().status());
#pragma once

#include <memory>
#include <string>

#include "common/status.h"
#include "iceberg/transaction/commit_retry.h"
#include "iceberg/transaction/delete_files.h"
#include "iceberg/transaction/expire_snapshots.h"
#include "iceberg/transaction/fast_append.h"
#include "iceberg/transaction/rewrite_files.h"
#include "iceberg/transaction/rewrite_manifests.h"
#include "iceberg/transaction/row_delta.h"
#include "iceberg/transaction/table_operations.h"
#include "iceberg/transaction/table_reading.h"
#include "iceberg/transaction/update_partition_spec.h"
#include "iceberg/transaction/update_properties.h"
#include "iceberg/transaction/update_schema.h"

namespace floe::iceberg {

class Table {
 public:
  static Result<Table> Load(std::shared_ptr<TableOperations> ops);

  const TableMetadata& metadata() const { return current_.metadata; }
  const std::string& metadata_location() const { return current_.metadata_location; }
  const LoadedTable& current() const { return current_; }
  TableOperations& ops() { return *ops_; }
  FileIO& io() { return ops_->io(); }
  RetryPolicy retry_policy() const { return RetryPolicy::FromProperties(current_.metadata.properties); }

  // Reloads the metadata from the catalog.
  Status Refresh();
  // Records a state committed by an action.
  void SetCurrent(LoadedTable committed) { current_ = std::move(committed); }

  FastAppend NewFastAppend() { return FastAppend(*this); }
  RowDelta NewRowDelta() { return RowDelta(*this); }
  RewriteFiles NewRewriteFiles() { return RewriteFiles(*this); }
  DeleteFiles NewDeleteFiles() { return DeleteFiles(*this); }
  UpdateSchema NewUpdateSchema() { return UpdateSchema(*this); }
  UpdatePartitionSpec NewUpdateSpec() { return UpdatePartitionSpec(*this); }
  UpdateProperties NewUpdateProperties() { return UpdateProperties(*this); }
  ExpireSnapshots NewExpireSnapshots() { return ExpireSnapshots(*this); }
  RewriteManifests NewRewriteManifests() { return RewriteManifests(*this); }

 private:
  Table(std::shared_ptr<TableOperations> ops, LoadedTable current)
      : ops_(std::move(ops)), current_(std::move(current)) {}

  std::shared_ptr<TableOperations> ops_;
  LoadedTable current_;
};

}  // namespace floe::iceberg
