// Snappy raw blocks (Parquet SNAPPY, Avro "snappy" without its CRC trailer).
#include <snappy.h>

#include <cstdint>
#include <string>

#include "compression/codec_internal.h"

namespace floe::compression_internal {

Status SnappyDecompress(std::span<const uint8_t> input, const OutputLimit& limit,
                        std::vector<uint8_t>* output) {
  const char* data = reinterpret_cast<const char*>(input.data());
  size_t length = 0;
  if (!snappy::GetUncompressedLength(data, input.size(), &length)) {
    return Status::Corruption("snappy: invalid block header");
  }
  if (length > static_cast<uint64_t>(limit.limit)) {
    if (limit.size_is_expected) {
      return Status::Corruption("snappy: decompressed " + std::to_string(length) +
                                " bytes, page header says " + std::to_string(limit.limit));
    }
    return OutputTooLarge("snappy", limit);
  }
  if (static_cast<int64_t>(length) > SnappyMaxDecompressedSize(input.size())) {
    return Status::Corruption("snappy: block header claims " + std::to_string(length) + " bytes from " +
                              std::to_string(input.size()) + " compressed bytes");
  }
  output->resize(length);
  if (!snappy::RawUncompress(data, input.size(), reinterpret_cast<char*>(output->data()))) {
    return Status::Corruption("snappy: corrupt block");
  }
  return Status::OK();
}

// A snappy copy element of 3 bytes yields at most 64; a header claiming a
// larger ratio is corrupt and must not be allocated.
int64_t SnappyMaxDecompressedSize(size_t input_size) {
  return input_size > (INT64_MAX - 64) / 32 ? INT64_MAX : static_cast<int64_t>(input_size) * 32 + 64;
}

Status SnappyDecompressInto(std::span<const uint8_t> input, std::span<uint8_t> output) {
  const char* data = reinterpret_cast<const char*>(input.data());
  size_t length = 0;
  if (!snappy::GetUncompressedLength(data, input.size(), &length)) {
    return Status::Corruption("snappy: invalid block header");
  }
  if (length != output.size()) {
    return Status::Corruption("snappy: block header says " + std::to_string(length) +
                              " decompressed bytes, page header says " + std::to_string(output.size()));
  }
  if (!snappy::RawUncompress(data, input.size(), reinterpret_cast<char*>(output.data()))) {
    return Status::Corruption("snappy: corrupt block");
  }
  return Status::OK();
}

int64_t SnappyMaxCompressedSize(size_t input_size) {
  return input_size > UINT32_MAX ? -1 : static_cast<int64_t>(snappy::MaxCompressedLength(input_size));
}

Result<size_t> SnappyCompressInto(std::span<const uint8_t> input, std::span<uint8_t> output) {
  if (input.size() > UINT32_MAX) {
    return Status::InvalidArgument("snappy: input of " + std::to_string(input.size()) +
                                   " bytes is over the 4 GiB block limit");
  }
  if (output.size() < snappy::MaxCompressedLength(input.size())) {
    return Status::InvalidArgument("snappy: output buffer of " + std::to_string(output.size()) +
                                   " bytes is below the compressed size bound");
  }
  size_t written = 0;
  snappy::RawCompress(reinterpret_cast<const char*>(input.data()), input.size(),
                      reinterpret_cast<char*>(output.data()), &written);
  return written;
}

Status SnappyCompress(std::span<const uint8_t> input, std::vector<uint8_t>* output) {
  if (input.size() > UINT32_MAX) {
    return Status::InvalidArgument("snappy: input of " + std::to_string(input.size()) +
                                   " bytes is over the 4 GiB block limit");
  }
  output->resize(snappy::MaxCompressedLength(input.size()));
  FLOE_ASSIGN_OR_RETURN(size_t written, SnappyCompressInto(input, *output));
  output->resize(written);
  return Status::OK();
}

}  // namespace floe::compression_internal
