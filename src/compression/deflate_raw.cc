// Raw deflate without zlib/gzip framing: Avro's "deflate" codec.
#include "compression/codec_internal.h"

namespace floe::compression_internal {

Status DeflateRawDecompress(std::span<const uint8_t> input, const OutputLimit& limit,
                            std::vector<uint8_t>* output) {
  // Bytes after the end of the deflate stream are ignored, as zlib-based Avro
  // readers do.
  return ZlibInflate("deflate", -15, /*decode_concatenated=*/false, input, limit, output);
}

Status DeflateRawCompress(std::span<const uint8_t> input, int level, std::vector<uint8_t>* output) {
  return ZlibDeflate("deflate", -15, input, level, output);
}

}  // namespace floe::compression_internal
