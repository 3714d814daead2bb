#include "iceberg/transaction/rewrite_files.h"

namespace floe::iceberg {

RewriteFiles& RewriteFiles::DeleteFile(const DataFile& old_file) {
  RemovePath(old_file.file_path);
  if (old_file.content == DataFileContent::kData) replaced_data_.insert(old_file.file_path);
  return *this;
}

RewriteFiles& RewriteFiles::AddFile(const DataFile& new_file) {
  SnapshotProducer::AddFile(new_file);
  return *this;
}

Status RewriteFiles::ValidateAgainst(const TableMetadata&) {
  if (removed_paths_.empty()) return Status::InvalidArgument("rewrite has no files to replace");
  set_remove_dangling_deletes(true);
  set_fail_on_new_deletes_for(replaced_data_);
  return Status::OK();
}

}  // namespace floe::iceberg
