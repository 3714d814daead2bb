// ForwardingFileIO: a FileIO that passes every call to another one; a
// wrapper derives from it and overrides only the calls it changes (tests'
// failing or blocking FileIOs). Thread-safety: as the wrapped FileIO's.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "io/file_io.h"

namespace floe {

class ForwardingFileIO : public FileIO {
 public:
  explicit ForwardingFileIO(std::shared_ptr<FileIO> base) : base_(std::move(base)) {}

  Result<std::unique_ptr<InputFile>> OpenRead(const std::string& path) override {
    return base_->OpenRead(path);
  }
  Result<std::unique_ptr<OutputFile>> Create(const std::string& path, CreateOptions options = {}) override {
    return base_->Create(path, options);
  }
  Result<FileInfo> Stat(const std::string& path) override { return base_->Stat(path); }
  Result<bool> Exists(const std::string& path) override { return base_->Exists(path); }
  Result<std::vector<FileInfo>> List(const std::string& prefix) override { return base_->List(prefix); }
  Status Delete(const std::string& path) override { return base_->Delete(path); }

 protected:
  FileIO& base() { return *base_; }

 private:
  std::shared_ptr<FileIO> base_;
};

}  // namespace floe
