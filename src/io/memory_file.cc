#include "io/memory_file.h"

#include <cstring>

namespace floe {

Status MemoryInputFile::ReadAt(int64_t offset, int64_t length, uint8_t* out) {
  const int64_t size = static_cast<int64_t>(bytes_.size());
  if (offset < 0 || length < 0) return Status::InvalidArgument(path_ + ": negative read range");
  if (offset > size || length > size - offset) {
    return Status::IOError(path_ + ": read of " + std::to_string(length) + " bytes at offset " +
                           std::to_string(offset) + " goes past the end of the file");
  }
  if (length > 0) std::memcpy(out, bytes_.data() + offset, static_cast<size_t>(length));
  return Status::OK();
}

}  // namespace floe
