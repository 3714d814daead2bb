// FileIO: the storage interface every reader and writer goes through.
//
// Contract: paths are either local paths or URIs ("file:///...", later
// "s3://..."). Reads are ranged, so a reader fetches a footer or one column
// chunk without loading the whole file. Writes become visible only when the
// OutputFile is closed successfully (local: temp file + rename; object stores:
// PUT / multipart complete); an aborted or destroyed-unclosed OutputFile leaves
// nothing at the path. Implementations are safe to use from several threads.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "common/status.h"

namespace floe {

struct FileInfo {
  std::string path;
  int64_t size = 0;
  int64_t mtime_ms = 0;  // modification time, ms since epoch
  // Local listings: a symbolic link's resolved target (size and mtime are
  // the target's), and whether that target lies outside the listed prefix.
  std::string link_target;
  bool link_leaves_prefix = false;
};

class InputFile {
 public:
  virtual ~InputFile() = default;
  virtual const std::string& path() const = 0;
  virtual Result<int64_t> Size() = 0;
  // Reads exactly `length` bytes at `offset` into `out`; a short file is an
  // error naming the path, offset and length.
  virtual Status ReadAt(int64_t offset, int64_t length, uint8_t* out) = 0;
  Result<std::vector<uint8_t>> Read(int64_t offset, int64_t length);
};

class OutputFile {
 public:
  virtual ~OutputFile() = default;
  virtual const std::string& path() const = 0;
  virtual Status Write(std::span<const uint8_t> bytes) = 0;
  Status Write(const std::string& bytes) {
    return Write(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
  }
  // Bytes written so far.
  virtual int64_t Position() const = 0;
  // Publishes the file. Returns its final size.
  virtual Result<int64_t> Close() = 0;
  // Discards everything written; nothing appears at path().
  virtual void Abort() = 0;
};

struct CreateOptions {
  // Fail with AlreadyExists instead of replacing an existing file.
  bool if_not_exists = false;
};

class FileIO {
 public:
  virtual ~FileIO() = default;
  virtual Result<std::unique_ptr<InputFile>> OpenRead(const std::string& path) = 0;
  virtual Result<std::unique_ptr<OutputFile>> Create(const std::string& path, CreateOptions options = {}) = 0;
  virtual Result<FileInfo> Stat(const std::string& path) = 0;
  virtual Result<bool> Exists(const std::string& path) = 0;
  // Every file under `prefix` (a directory), recursively, sorted by path.
  virtual Result<std::vector<FileInfo>> List(const std::string& prefix) = 0;
  virtual Status Delete(const std::string& path) = 0;

  // Convenience: whole-file read and write.
  Result<std::vector<uint8_t>> ReadAll(const std::string& path);
  Status WriteAll(const std::string& path, std::span<const uint8_t> bytes, CreateOptions options = {});
  Status WriteAll(const std::string& path, const std::string& bytes, CreateOptions options = {});
};

// Wraps a FileIO in another (tests put every FileIO of an operation behind a
// FaultInjectingFileIO through one of these).
using FileIOWrapper = std::function<std::shared_ptr<FileIO>(std::shared_ptr<FileIO>)>;

// A FileIO for the local filesystem; accepts plain paths and file:// URIs.
std::shared_ptr<FileIO> MakeLocalFileIO();

// Strips a "file://" scheme if present.
std::string LocalPathOf(const std::string& path_or_uri);

}  // namespace floe
