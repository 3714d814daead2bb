// Puffin files (Iceberg puffin-spec.md): "PFA1", blobs, then a footer of
// "PFA1", a JSON payload, its size (int32 LE), 4 flag bytes, "PFA1".
//
// Contract: the writer stores blobs uncompressed and an uncompressed footer
// {"blobs": [{type, fields, snapshot-id, sequence-number, offset, length,
// properties}], "properties": {"created-by": ...}}. The footer reader treats
// the file as untrusted: every size is checked against the file length, the
// payload against max_footer_bytes, and each blob's range against the data
// area; failures are Corruption naming what was wrong (compressed footers
// are NotSupported).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "io/file_io.h"

namespace floe::iceberg {

inline constexpr std::string_view kPuffinMagic = "PFA1";

struct PuffinBlobMetadata {
  std::string type;
  std::vector<int32_t> fields;
  int64_t snapshot_id = -1;
  int64_t sequence_number = -1;
  int64_t offset = 0;
  int64_t length = 0;
  std::optional<std::string> compression_codec;
  std::map<std::string, std::string> properties;

  bool operator==(const PuffinBlobMetadata& other) const = default;
};

struct PuffinFooter {
  std::vector<PuffinBlobMetadata> blobs;
  std::map<std::string, std::string> properties;
  int64_t footer_size = 0;  // bytes from the footer's first magic to the end
};

class PuffinWriter {
 public:
  static Result<std::unique_ptr<PuffinWriter>> Open(FileIO& io, const std::string& path,
                                                    std::string created_by = "floe version 0.1.0");
  // Appends one blob; returns its metadata with offset and length filled in.
  Result<PuffinBlobMetadata> AddBlob(PuffinBlobMetadata metadata, std::string_view bytes);
  // Writes the footer and publishes the file; returns its size.
  Result<int64_t> Close();
  const std::string& path() const { return path_; }

 private:
  PuffinWriter(std::string path, std::unique_ptr<OutputFile> out, std::string created_by)
      : path_(std::move(path)), out_(std::move(out)), created_by_(std::move(created_by)) {}

  std::string path_;
  std::unique_ptr<OutputFile> out_;
  std::string created_by_;
  std::vector<PuffinBlobMetadata> blobs_;
};

Result<PuffinFooter> ReadPuffinFooter(InputFile& file, int64_t max_footer_bytes = int64_t{16} << 20);

}  // namespace floe::iceberg
