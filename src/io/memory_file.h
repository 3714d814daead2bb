// MemoryInputFile: an InputFile over bytes held in memory (tests, fuzzing,
// small objects already fetched whole).
//
// Contract: reads outside [0, size) are IOError naming the path, offset and
// length, exactly as a short local file would be. Safe for concurrent reads.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "io/file_io.h"

namespace floe {

class MemoryInputFile final : public InputFile {
 public:
  MemoryInputFile(std::string path, std::vector<uint8_t> bytes)
      : path_(std::move(path)), bytes_(std::move(bytes)) {}
  const std::string& path() const override { return path_; }
  Result<int64_t> Size() override { return static_cast<int64_t>(bytes_.size()); }
  Status ReadAt(int64_t offset, int64_t length, uint8_t* out) override;

 private:
  std::string path_;
  std::vector<uint8_t> bytes_;
};

}  // namespace floe
