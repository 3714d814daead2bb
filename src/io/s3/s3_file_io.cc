// S3FileIO: InputFile over ranged GETs, OutputFile over PUT or a parallel
// multipart upload, listing over paged ListObjectsV2.
#include "io/s3/s3_file_io.h"

#include <algorithm>
#include <atomic>
#include <deque>
#include <future>
#include <mutex>
#include <optional>
#include <thread>

namespace floe::s3 {
namespace {

std::string UriOf(const std::string& bucket, const std::string& key) {
  return "s3://" + bucket + "/" + key;
}

// The key prefix of a directory-like listing: "dir" -> "dir/", "" -> "".
std::string DirectoryPrefix(const std::string& key) {
  if (key.empty() || key.back() == '/') return key;
  return key + "/";
}

Result<S3Location> ParseObjectUri(const std::string& uri) {
  FLOE_ASSIGN_OR_RETURN(S3Location location, ParseS3Uri(uri));
  if (location.key.empty()) return Status::InvalidArgument(uri + " names a bucket, not an object");
  return location;
}

class S3InputFile final : public InputFile {
 public:
  S3InputFile(std::shared_ptr<S3Client> client, std::string path, S3Location location, int64_t size)
      : client_(std::move(client)), path_(std::move(path)), location_(std::move(location)), size_(size) {}

  const std::string& path() const override { return path_; }
  Result<int64_t> Size() override { return size_; }

  Status ReadAt(int64_t offset, int64_t length, uint8_t* out) override {
    if (offset < 0 || length < 0) return Status::InvalidArgument(path_ + ": negative read range");
    const S3Options& tuning = client_->config().tuning;
    const int64_t chunk = tuning.multipart_part_size;
    if (length <= chunk || tuning.read_parallelism <= 1) {
      return client_->GetObjectRange(location_.bucket, location_.key, offset, length, out);
    }
    // Large reads: part-size ranges fetched by a few threads; the first error wins.
    const int64_t chunks = (length + chunk - 1) / chunk;
    std::atomic<int64_t> next{0};
    std::mutex error_mutex;
    Status first_error;
    auto worker = [&] {
      for (int64_t i = next.fetch_add(1); i < chunks; i = next.fetch_add(1)) {
        {
          std::lock_guard<std::mutex> lock(error_mutex);
          if (!first_error.ok()) return;
        }
        int64_t begin = i * chunk;
        int64_t size = std::min(chunk, length - begin);
        Status st =
            client_->GetObjectRange(location_.bucket, location_.key, offset + begin, size, out + begin);
        if (!st.ok()) {
          std::lock_guard<std::mutex> lock(error_mutex);
          if (first_error.ok()) first_error = st;
          return;
        }
      }
    };
    int threads = static_cast<int>(std::min<int64_t>(tuning.read_parallelism, chunks));
    std::vector<std::thread> pool;
    for (int t = 1; t < threads; ++t) pool.emplace_back(worker);
    worker();
    for (std::thread& thread : pool) thread.join();
    return first_error;
  }

 private:
  std::shared_ptr<S3Client> client_;
  std::string path_;
  S3Location location_;
  int64_t size_;
};

class S3OutputFile final : public OutputFile {
 public:
  S3OutputFile(std::shared_ptr<S3Client> client, std::string path, S3Location location, bool if_not_exists)
      : client_(std::move(client)),
        path_(std::move(path)),
        location_(std::move(location)),
        if_not_exists_(if_not_exists),
        tuning_(client_->config().tuning) {}

  ~S3OutputFile() override {
    if (state_ == State::kOpen) Abort();
  }

  const std::string& path() const override { return path_; }
  int64_t Position() const override { return position_; }

  Status Write(std::span<const uint8_t> bytes) override {
    if (state_ != State::kOpen)
      return Status::Internal(path_ + ": write after close, abort or a failed write");
    buffer_.insert(buffer_.end(), bytes.begin(), bytes.end());
    position_ += static_cast<int64_t>(bytes.size());
    if (upload_id_.empty() && static_cast<int64_t>(buffer_.size()) > tuning_.multipart_threshold) {
      Result<std::string> id = client_->CreateMultipartUpload(location_.bucket, location_.key);
      if (!id.ok()) return Fail(id.status());
      upload_id_ = *id;
    }
    while (!upload_id_.empty() && static_cast<int64_t>(buffer_.size()) >= tuning_.multipart_part_size) {
      std::vector<uint8_t> part(buffer_.begin(), buffer_.begin() + tuning_.multipart_part_size);
      buffer_.erase(buffer_.begin(), buffer_.begin() + tuning_.multipart_part_size);
      FLOE_RETURN_IF_ERROR(SubmitPart(std::move(part)));
    }
    return Status::OK();
  }

  Result<int64_t> Close() override {
    if (state_ != State::kOpen)
      return Status::Internal(path_ + ": Close after close, abort or a failed write");
    if (upload_id_.empty()) {
      Status st = client_->PutObject(location_.bucket, location_.key, buffer_, if_not_exists_);
      buffer_.clear();
      buffer_.shrink_to_fit();
      if (!st.ok()) {
        state_ = State::kFailed;
        return st;
      }
      state_ = State::kClosed;
      return position_;
    }
    if (!buffer_.empty() || next_part_number_ == 1) {
      std::vector<uint8_t> last;
      last.swap(buffer_);
      FLOE_RETURN_IF_ERROR(SubmitPart(std::move(last)));
    }
    while (!in_flight_.empty()) FLOE_RETURN_IF_ERROR(CollectOldest());
    std::sort(parts_.begin(), parts_.end(), [](const S3CompletedPart& a, const S3CompletedPart& b) {
      return a.part_number < b.part_number;
    });
    Status st =
        client_->CompleteMultipartUpload(location_.bucket, location_.key, upload_id_, parts_, if_not_exists_);
    if (!st.ok() && st.kind() == ErrorKind::kNotFound &&
        st.message().find("NoSuchUpload") != std::string::npos) {
      // A retried Complete whose first try succeeded unseen finds the upload
      // gone; the object being there with our size means it did complete.
      Result<S3ObjectInfo> head = client_->HeadObject(location_.bucket, location_.key);
      if (head.ok() && head->size == position_) st = Status::OK();
    }
    if (!st.ok()) return Fail(st);
    upload_id_.clear();
    state_ = State::kClosed;
    return position_;
  }

  void Abort() override {
    if (state_ == State::kClosed || state_ == State::kAborted) return;
    DrainAndAbortUpload();
    state_ = State::kAborted;
  }

 private:
  enum class State { kOpen, kClosed, kAborted, kFailed };
  struct InFlight {
    int part_number;
    std::future<Result<std::string>> etag;
  };

  Status SubmitPart(std::vector<uint8_t> data) {
    if (static_cast<int>(in_flight_.size()) >= tuning_.upload_parallelism)
      FLOE_RETURN_IF_ERROR(CollectOldest());
    int part_number = next_part_number_++;
    if (part_number > 10000)
      return Fail(Status::InvalidArgument(path_ + ": more than 10000 multipart parts"));
    auto shared = std::make_shared<std::vector<uint8_t>>(std::move(data));
    std::shared_ptr<S3Client> client = client_;
    S3Location location = location_;
    std::string upload_id = upload_id_;
    in_flight_.push_back({part_number, std::async(std::launch::async, [=]() {
                            return client->UploadPart(location.bucket, location.key, upload_id, part_number,
                                                      *shared);
                          })});
    return Status::OK();
  }

  Status CollectOldest() {
    InFlight oldest = std::move(in_flight_.front());
    in_flight_.pop_front();
    Result<std::string> etag = oldest.etag.get();
    if (!etag.ok()) return Fail(etag.status());
    parts_.push_back({oldest.part_number, *etag});
    return Status::OK();
  }

  // Any failure after the upload started aborts it: nothing may appear at path_.
  Status Fail(const Status& cause) {
    DrainAndAbortUpload();
    state_ = State::kFailed;
    return cause;
  }

  void DrainAndAbortUpload() {
    while (!in_flight_.empty()) {
      in_flight_.front().etag.wait();
      in_flight_.pop_front();
    }
    if (!upload_id_.empty()) {
      // Best effort: a failed abort leaves an invisible upload that a bucket
      // lifecycle rule cleans up; the caller already has the original error.
      (void)client_->AbortMultipartUpload(location_.bucket, location_.key, upload_id_);
      upload_id_.clear();
    }
    buffer_.clear();
    buffer_.shrink_to_fit();
  }

  std::shared_ptr<S3Client> client_;
  std::string path_;
  S3Location location_;
  bool if_not_exists_;
  S3Options tuning_;
  State state_ = State::kOpen;
  std::vector<uint8_t> buffer_;
  int64_t position_ = 0;
  std::string upload_id_;
  int next_part_number_ = 1;
  std::deque<InFlight> in_flight_;
  std::vector<S3CompletedPart> parts_;
};

FileInfo ToFileInfo(const std::string& bucket, const S3ObjectInfo& object) {
  FileInfo info;
  info.path = UriOf(bucket, object.key);
  info.size = object.size;
  info.mtime_ms = object.mtime_ms;
  return info;
}

}  // namespace

bool IsS3Uri(const std::string& uri) {
  return uri.rfind("s3://", 0) == 0 || uri.rfind("s3a://", 0) == 0;
}

Result<S3Location> ParseS3Uri(const std::string& uri) {
  size_t scheme_end;
  if (uri.rfind("s3://", 0) == 0) {
    scheme_end = 5;
  } else if (uri.rfind("s3a://", 0) == 0) {
    scheme_end = 6;
  } else {
    return Status::InvalidArgument("'" + uri + "' is not an s3:// or s3a:// URI");
  }
  size_t slash = uri.find('/', scheme_end);
  S3Location location;
  location.bucket =
      uri.substr(scheme_end, slash == std::string::npos ? std::string::npos : slash - scheme_end);
  if (slash != std::string::npos) location.key = uri.substr(slash + 1);
  if (location.bucket.empty()) return Status::InvalidArgument("'" + uri + "' has no bucket name");
  if (location.bucket.find_first_of(" ?#@:") != std::string::npos) {
    return Status::InvalidArgument("'" + uri + "' has an invalid bucket name '" + location.bucket + "'");
  }
  return location;
}

Result<std::unique_ptr<InputFile>> S3FileIO::OpenRead(const std::string& path) {
  FLOE_ASSIGN_OR_RETURN(S3Location location, ParseObjectUri(path));
  FLOE_ASSIGN_OR_RETURN(S3ObjectInfo info, client_->HeadObject(location.bucket, location.key));
  return std::unique_ptr<InputFile>(new S3InputFile(client_, path, std::move(location), info.size));
}

Result<std::unique_ptr<OutputFile>> S3FileIO::Create(const std::string& path, CreateOptions options) {
  FLOE_ASSIGN_OR_RETURN(S3Location location, ParseObjectUri(path));
  if (options.if_not_exists) {
    FLOE_ASSIGN_OR_RETURN(bool exists, Exists(path));
    if (exists) return Status::AlreadyExists(path + " already exists");
  }
  return std::unique_ptr<OutputFile>(
      new S3OutputFile(client_, path, std::move(location), options.if_not_exists));
}

Result<FileInfo> S3FileIO::Stat(const std::string& path) {
  FLOE_ASSIGN_OR_RETURN(S3Location location, ParseObjectUri(path));
  FLOE_ASSIGN_OR_RETURN(S3ObjectInfo info, client_->HeadObject(location.bucket, location.key));
  FileInfo file;
  file.path = path;
  file.size = info.size;
  file.mtime_ms = info.mtime_ms;
  return file;
}

Result<bool> S3FileIO::Exists(const std::string& path) {
  FLOE_ASSIGN_OR_RETURN(S3Location location, ParseObjectUri(path));
  Result<S3ObjectInfo> info = client_->HeadObject(location.bucket, location.key);
  if (info.ok()) return true;
  if (info.status().kind() == ErrorKind::kNotFound) return false;
  return info.status();
}

Result<std::vector<FileInfo>> S3FileIO::List(const std::string& prefix) {
  return ListAfter(prefix, "");
}

Result<std::vector<FileInfo>> S3FileIO::ListAfter(const std::string& prefix, const std::string& start_after,
                                                  size_t max_results) {
  FLOE_ASSIGN_OR_RETURN(S3Location location, ParseS3Uri(prefix));
  S3ListRequest request;
  request.prefix = DirectoryPrefix(location.key);
  if (IsS3Uri(start_after)) {
    FLOE_ASSIGN_OR_RETURN(S3Location after, ParseS3Uri(start_after));
    request.start_after = after.key;
  } else {
    request.start_after = start_after;
  }
  std::vector<FileInfo> out;
  for (;;) {
    if (max_results > 0)
      request.max_keys = static_cast<int>(std::min<size_t>(1000, max_results - out.size()));
    FLOE_ASSIGN_OR_RETURN(S3ListPage page, client_->ListObjectsV2(location.bucket, request));
    for (const S3ObjectInfo& object : page.objects) {
      // A zero-byte key ending in '/' is a "folder" marker made by consoles, not a file.
      if (!object.key.empty() && object.key.back() == '/') continue;
      out.push_back(ToFileInfo(location.bucket, object));
    }
    if (!page.truncated || (max_results > 0 && out.size() >= max_results)) break;
    if (page.next_continuation_token == request.continuation_token) {
      return Status::Corruption("S3 ListObjectsV2 " + prefix + ": the server repeated a continuation token");
    }
    request.continuation_token = page.next_continuation_token;
  }
  if (max_results > 0 && out.size() > max_results) out.resize(max_results);
  std::sort(out.begin(), out.end(), [](const FileInfo& a, const FileInfo& b) { return a.path < b.path; });
  return out;
}

Status S3FileIO::Delete(const std::string& path) {
  FLOE_ASSIGN_OR_RETURN(S3Location location, ParseObjectUri(path));
  return client_->DeleteObject(location.bucket, location.key);
}

Status S3FileIO::DeleteMany(const std::vector<std::string>& paths) {
  std::map<std::string, std::vector<std::string>> keys_by_bucket;
  for (const std::string& path : paths) {
    FLOE_ASSIGN_OR_RETURN(S3Location location, ParseObjectUri(path));
    keys_by_bucket[location.bucket].push_back(location.key);
  }
  for (const auto& [bucket, keys] : keys_by_bucket)
    FLOE_RETURN_IF_ERROR(client_->DeleteObjects(bucket, keys));
  return Status::OK();
}

Result<std::shared_ptr<S3FileIO>> MakeS3FileIO(const S3Options& options) {
  FLOE_ASSIGN_OR_RETURN(S3Config config, ResolveS3Config(options));
  return std::make_shared<S3FileIO>(std::make_shared<S3Client>(std::move(config)));
}

}  // namespace floe::s3
