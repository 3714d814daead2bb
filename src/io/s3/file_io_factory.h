// Picks the FileIO for a path or URI, so callers need not know the storage.
//
// Contract: plain paths and file:// URIs get the local FileIO; s3:// and s3a://
// get an S3 FileIO configured from `s3_options` (see io/s3/s3_config.h for how
// the environment and ~/.aws files fill in what is unset); any other scheme
// ("gs://", "hdfs://") is NotSupported naming the scheme.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "io/file_io.h"
#include "io/s3/s3_config.h"

namespace floe {

Result<std::shared_ptr<FileIO>> FileIOForUri(const std::string& uri, const s3::S3Options& s3_options = {});

// Files under the directory `prefix` whose paths sort after `start_after`
// (empty: all), sorted, at most `max_results` (0: no limit). On S3 this is a
// server-side start-after listing; elsewhere it filters List(). Incremental
// sources pass the last path they processed to see only newer ones.
Result<std::vector<FileInfo>> ListAfter(FileIO& io, const std::string& prefix, const std::string& start_after,
                                        size_t max_results = 0);

}  // namespace floe
