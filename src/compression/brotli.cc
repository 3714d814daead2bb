// Brotli streams (Parquet BROTLI).
#include <brotli/decode.h>
#include <brotli/encode.h>

#include <string>

#include "compression/codec_internal.h"

namespace floe::compression_internal {

namespace {

// Quality 8 balances speed and ratio for page-sized inputs; 11 is far slower.
constexpr int kDefaultBrotliQuality = 8;

}  // namespace

Status BrotliDecompress(std::span<const uint8_t> input, const OutputLimit& limit,
                        std::vector<uint8_t>* output) {
  BrotliDecoderState* state = BrotliDecoderCreateInstance(nullptr, nullptr, nullptr);
  if (state == nullptr) return Status::Internal("brotli: out of memory creating a decoder");
  output->resize(InitialCapacity(input.size(), limit));
  const uint8_t* next_in = input.data();
  size_t avail_in = input.size();
  size_t used = 0;
  Status status;
  while (true) {
    if (used == output->size() && !GrowOutput(output, used, limit)) {
      status = OutputTooLarge("brotli", limit);
      break;
    }
    uint8_t* next_out = output->data() + used;
    size_t avail_out = output->size() - used;
    const BrotliDecoderResult result =
        BrotliDecoderDecompressStream(state, &avail_in, &next_in, &avail_out, &next_out, nullptr);
    used = output->size() - avail_out;
    if (result == BROTLI_DECODER_RESULT_SUCCESS) {
      if (avail_in != 0) {
        status = Status::Corruption("brotli: " + std::to_string(avail_in) +
                                    " trailing bytes after the end of the stream");
      }
      break;
    }
    if (result == BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT) continue;
    if (result == BROTLI_DECODER_RESULT_NEEDS_MORE_INPUT) {
      status = Status::Corruption("brotli: input ends inside the compressed stream");
      break;
    }
    status = Status::Corruption(std::string("brotli: corrupt input: ") +
                                BrotliDecoderErrorString(BrotliDecoderGetErrorCode(state)));
    break;
  }
  BrotliDecoderDestroyInstance(state);
  if (!status.ok()) return status;
  output->resize(used);
  return Status::OK();
}

Status BrotliCompress(std::span<const uint8_t> input, int level, std::vector<uint8_t>* output) {
  if (level == 0) level = kDefaultBrotliQuality;
  if (level < BROTLI_MIN_QUALITY || level > BROTLI_MAX_QUALITY) {
    return Status::InvalidArgument("brotli: level " + std::to_string(level) + " is outside 1..11");
  }
  size_t bound = BrotliEncoderMaxCompressedSize(input.size());
  if (bound == 0) {
    return Status::InvalidArgument("brotli: input of " + std::to_string(input.size()) +
                                   " bytes is too large");
  }
  output->resize(bound);
  size_t written = output->size();
  if (!BrotliEncoderCompress(level, BROTLI_DEFAULT_WINDOW, BROTLI_MODE_GENERIC, input.size(), input.data(),
                             &written, output->data())) {
    output->clear();
    return Status::Internal("brotli: compression failed");
  }
  output->resize(written);
  return Status::OK();
}

}  // namespace floe::compression_internal
