// Fuzzes the CDA manifest.json parser: any bytes must give a manifest or an
// error, never a crash, an exception or an unbounded allocation.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "ingest/discovery/cda_manifest.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto parsed = floe::ingest::ParseCdaManifest(std::string_view(reinterpret_cast<const char*>(data), size),
                                               "manifest.json");
  (void)parsed;
  return 0;
}
