// Fuzzes the strict XML reader that parses S3 responses (ListObjectsV2,
// errors, multipart): it must return a tree or an error, never crash.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "io/s3/s3_xml.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto parsed = floe::s3::ParseXml(std::string_view(reinterpret_cast<const char*>(data), size));
  (void)parsed;
  return 0;
}
