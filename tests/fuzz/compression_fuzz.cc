// Fuzzes every decompressor with arbitrary bytes: the first byte picks the
// codec, the next two an expected size (or unknown). Decompress must return
// an error or bytes, never crash or allocate past max_size.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "compression/codec.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 3) return 0;
  static constexpr floe::Codec kCodecs[] = {
      floe::Codec::kSnappy, floe::Codec::kGzip,      floe::Codec::kBrotli,   floe::Codec::kZstd,
      floe::Codec::kLz4Raw, floe::Codec::kLz4Hadoop, floe::Codec::kLz4Frame, floe::Codec::kDeflateRaw,
  };
  floe::Codec codec = kCodecs[data[0] % (sizeof(kCodecs) / sizeof(kCodecs[0]))];
  int64_t expected = (data[1] & 0x80) ? -1 : static_cast<int64_t>(((data[1] & 0x7f) << 8) | data[2]);
  std::vector<uint8_t> out;
  floe::Status st = floe::Decompress(codec, std::span<const uint8_t>(data + 3, size - 3), expected, &out,
                                     /*max_size=*/1 << 20);
  if (st.ok() && expected >= 0 && static_cast<int64_t>(out.size()) != expected) __builtin_trap();
  return 0;
}
