// URI-scheme dispatch between the local and S3 FileIO implementations.
#include "io/s3/file_io_factory.h"

#include <algorithm>

#include "io/s3/s3_file_io.h"

namespace floe {

Result<std::shared_ptr<FileIO>> FileIOForUri(const std::string& uri, const s3::S3Options& s3_options) {
  if (s3::IsS3Uri(uri)) {
    FLOE_ASSIGN_OR_RETURN(std::shared_ptr<s3::S3FileIO> io, s3::MakeS3FileIO(s3_options));
    return std::shared_ptr<FileIO>(std::move(io));
  }
  size_t scheme_end = uri.find("://");
  if (scheme_end != std::string::npos && uri.rfind("file://", 0) != 0) {
    return Status::NotSupported("no FileIO for the '" + uri.substr(0, scheme_end) + "' scheme of '" + uri +
                                "' (supported: local paths, file://, s3://, s3a://)");
  }
  return MakeLocalFileIO();
}

Result<std::vector<FileInfo>> ListAfter(FileIO& io, const std::string& prefix, const std::string& start_after,
                                        size_t max_results) {
  if (auto* s3_io = dynamic_cast<s3::S3FileIO*>(&io))
    return s3_io->ListAfter(prefix, start_after, max_results);
  FLOE_ASSIGN_OR_RETURN(std::vector<FileInfo> all, io.List(prefix));
  std::vector<FileInfo> out;
  for (FileInfo& info : all) {
    if (!start_after.empty() && !(info.path > start_after)) continue;
    out.push_back(std::move(info));
    if (max_results > 0 && out.size() >= max_results) break;
  }
  return out;
}

}  // namespace floe
