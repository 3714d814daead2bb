#include "io/file_io.h"

namespace floe {

Result<std::vector<uint8_t>> InputFile::Read(int64_t offset, int64_t length) {
  if (length < 0 || offset < 0) {
    return Status::InvalidArgument(path() + ": negative read range");
  }
  std::vector<uint8_t> out(static_cast<size_t>(length));
  FLOE_RETURN_IF_ERROR(ReadAt(offset, length, out.data()));
  return out;
}

Result<std::vector<uint8_t>> FileIO::ReadAll(const std::string& path) {
  FLOE_ASSIGN_OR_RETURN(auto file, OpenRead(path));
  FLOE_ASSIGN_OR_RETURN(int64_t size, file->Size());
  return file->Read(0, size);
}

Status FileIO::WriteAll(const std::string& path, std::span<const uint8_t> bytes, CreateOptions options) {
  FLOE_ASSIGN_OR_RETURN(auto out, Create(path, options));
  Status st = out->Write(bytes);
  if (!st.ok()) {
    out->Abort();
    return st;
  }
  return out->Close().status();
}

Status FileIO::WriteAll(const std::string& path, const std::string& bytes, CreateOptions options) {
  return WriteAll(path, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()),
                  options);
}

}  // namespace floe
