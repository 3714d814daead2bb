#include "iceberg/transaction/delete_files.h"

namespace floe::iceberg {

Status DeleteFiles::ValidateAgainst(const TableMetadata&) {
  if (removed_paths_.empty()) return Status::InvalidArgument("delete has no files to remove");
  set_remove_dangling_deletes(true);
  return Status::OK();
}

}  // namespace floe::iceberg
