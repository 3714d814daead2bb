// Streaming decompression of whole compressed files (landing-zone files
// such as events.jsonl.gz): output is produced piece by piece into the
// caller's buffer, so memory stays bounded whatever the file expands to.
//
// Contract: Decode consumes bytes from *input (advancing it) and writes up
// to output.size() bytes, returning how many; 0 means it needs more input or
// the stream ended. Concatenated gzip members, zstd frames, lz4 frames and
// bzip2 streams decode one after another, as the command-line tools do.
// AtFrameBoundary says whether the input consumed so far ends where a
// member/frame ends (so a file may end there; ending elsewhere is a
// truncated file). Corrupt input is Corruption naming the codec; bytes
// after a member that do not start another one are corrupt too. Reset
// starts over for a new stream. Not thread-safe; one decoder per stream.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>

#include "common/status.h"

namespace floe {

enum class StreamCodec : uint8_t { kGzip, kZstd, kLz4Frame, kBzip2 };

// "gzip", "zstd", "lz4", "bzip2".
const char* StreamCodecName(StreamCodec codec);

class StreamDecoder {
 public:
  virtual ~StreamDecoder() = default;
  virtual Result<size_t> Decode(std::span<const uint8_t>* input, std::span<uint8_t> output) = 0;
  virtual bool AtFrameBoundary() const = 0;
  virtual Status Reset() = 0;
};

Result<std::unique_ptr<StreamDecoder>> MakeStreamDecoder(StreamCodec codec);

// The codec whose magic number starts `head` (at least 4 bytes for zstd and
// lz4), or nullopt.
std::optional<StreamCodec> DetectStreamCodec(std::span<const uint8_t> head);

}  // namespace floe
