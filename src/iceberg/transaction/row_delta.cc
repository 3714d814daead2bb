#include "iceberg/transaction/row_delta.h"

namespace floe::iceberg {

RowDelta& RowDelta::AddRows(const DataFile& data_file) {
  if (data_file.content != DataFileContent::kData && invalid_.ok()) {
    invalid_ =
        Status::InvalidArgument("AddRows takes data files; " + data_file.file_path + " is a delete file");
  }
  has_data_ = true;
  AddFile(data_file);
  return *this;
}

RowDelta& RowDelta::AddDeletes(const DataFile& delete_file) {
  if (delete_file.content == DataFileContent::kData && invalid_.ok()) {
    invalid_ = Status::InvalidArgument("AddDeletes takes delete files; " + delete_file.file_path +
                                       " is a data file");
  }
  if (IsDeletionVector(delete_file) && !delete_file.referenced_data_file && invalid_.ok()) {
    invalid_ =
        Status::InvalidArgument("deletion vector " + delete_file.file_path + " has no referenced_data_file");
  }
  if (delete_file.referenced_data_file) referenced_.insert(*delete_file.referenced_data_file);
  has_deletes_ = true;
  AddFile(delete_file);
  return *this;
}

RowDelta& RowDelta::RemoveDeletes(const std::string& delete_file_path) {
  if (delete_file_path.empty() && invalid_.ok()) {
    invalid_ = Status::InvalidArgument("RemoveDeletes takes a delete file path; got an empty one");
  }
  removes_deletes_ = true;
  RemoveDeleteFilePath(delete_file_path);
  return *this;
}

RowDelta& RowDelta::RemoveDeletes(const DataFile& delete_file) {
  if (delete_file.content == DataFileContent::kData && invalid_.ok()) {
    invalid_ = Status::InvalidArgument("RemoveDeletes takes delete files; " + delete_file.file_path +
                                       " is a data file");
  }
  if (IsDeletionVector(delete_file) && delete_file.content_offset) {
    removes_deletes_ = true;
    RemoveDeletionVector(delete_file.file_path, *delete_file.content_offset);
    return *this;
  }
  return RemoveDeletes(delete_file.file_path);
}

RowDelta& RowDelta::ValidateDataFileExists(const std::string& path) {
  referenced_.insert(path);
  return *this;
}

std::string RowDelta::operation() const {
  const bool changes_deletes = has_deletes_ || removes_deletes_;
  if (has_data_ && !changes_deletes) return kOperationAppend;
  if (changes_deletes && !has_data_) return kOperationDelete;
  return kOperationOverwrite;
}

Status RowDelta::ValidateAgainst(const TableMetadata&) {
  FLOE_RETURN_IF_ERROR(invalid_);
  if (added_files_.empty() && !removes_deletes_) {
    return Status::InvalidArgument("row delta has no files to add or remove");
  }
  set_fail_on_removed_data(referenced_);
  set_fail_on_new_deletes_for(referenced_);
  return Status::OK();
}

}  // namespace floe::iceberg
