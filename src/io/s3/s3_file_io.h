// FileIO over S3: s3://bucket/key and s3a://bucket/key URIs (bucket = host part).
//
// Contract (beyond io/file_io.h):
// - OpenRead: Size() is one HEAD, cached; ReadAt is a ranged GET, split into
//   part-size ranges fetched concurrently (read_parallelism) when large.
// - Create: the OutputFile buffers in memory up to multipart_threshold; past it,
//   it starts a multipart upload and uploads part_size parts in the background,
//   at most upload_parallelism at a time. Close publishes (single PUT for small
//   files, CompleteMultipartUpload otherwise); Abort, a failed Close or the
//   destructor of an unclosed file abort the multipart upload, so nothing appears.
//   A retried Complete answered NoSuchUpload (its first try succeeded but the
//   answer was lost) counts as success when a HEAD finds the object with our size.
// - Create with if_not_exists: fails early when a HEAD finds the key, and sends
//   "If-None-Match: *" on the PUT / CompleteMultipartUpload so a concurrent
//   writer loses with AlreadyExists on AWS S3. Servers that ignore the header
//   (s3rver does) overwrite in that race; only the early HEAD check applies there.
//   A retried conditional PUT whose first try succeeded unseen reports AlreadyExists.
// - List(prefix) treats prefix as a directory ("s3://b/dir" lists keys under
//   "dir/"), pages through ListObjectsV2 and returns every object sorted by path.
// - Delete of a missing key succeeds (S3 semantics, like the local FileIO).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "io/file_io.h"
#include "io/s3/s3_client.h"
#include "io/s3/s3_config.h"

namespace floe::s3 {

struct S3Location {
  std::string bucket;
  std::string key;
};

// Parses "s3://bucket/key" or "s3a://bucket/key"; the key may be empty.
Result<S3Location> ParseS3Uri(const std::string& uri);
bool IsS3Uri(const std::string& uri);

class S3FileIO final : public FileIO {
 public:
  explicit S3FileIO(std::shared_ptr<S3Client> client) : client_(std::move(client)) {}

  Result<std::unique_ptr<InputFile>> OpenRead(const std::string& path) override;
  Result<std::unique_ptr<OutputFile>> Create(const std::string& path, CreateOptions options = {}) override;
  Result<FileInfo> Stat(const std::string& path) override;
  Result<bool> Exists(const std::string& path) override;
  Result<std::vector<FileInfo>> List(const std::string& prefix) override;
  Status Delete(const std::string& path) override;

  // Objects under `prefix` (a directory, as in List) whose keys sort after
  // `start_after` (a full s3:// URI or a bare key; empty = from the start), in
  // key order; at most `max_results` (0 = all). Sources call it with the last
  // path they saw to pick up only newer files.
  Result<std::vector<FileInfo>> ListAfter(const std::string& prefix, const std::string& start_after,
                                          size_t max_results = 0);
  // Deletes many objects of one bucket with batched DeleteObjects requests.
  Status DeleteMany(const std::vector<std::string>& paths);

  S3Client& client() { return *client_; }

 private:
  std::shared_ptr<S3Client> client_;
};

// Resolves `options` (see s3_config.h) and builds the FileIO.
Result<std::shared_ptr<S3FileIO>> MakeS3FileIO(const S3Options& options = {});

}  // namespace floe::s3
