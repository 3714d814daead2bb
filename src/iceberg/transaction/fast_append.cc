#include "iceberg/transaction/fast_append.h"

namespace floe::iceberg {

FastAppend& FastAppend::AppendFile(const DataFile& file) {
  if (file.content != DataFileContent::kData && invalid_.ok()) {
    invalid_ =
        Status::InvalidArgument("fast append takes data files only; " + file.file_path + " is a delete file");
  }
  AddFile(file);
  return *this;
}

Status FastAppend::ValidateAgainst(const TableMetadata&) {
  FLOE_RETURN_IF_ERROR(invalid_);
  if (added_files_.empty() && !allow_empty_)
    return Status::InvalidArgument("fast append has no files to add");
  return Status::OK();
}

}  // namespace floe::iceberg
