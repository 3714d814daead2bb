// Test helpers: reading files of the shared Parquet corpus and cutting out
// their Thrift footer.
#pragma once

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace floe::parquet::testing {

inline std::vector<uint8_t> ReadWholeFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// The last four bytes of a Parquet file: "PAR1", or "PARE" for a file whose
// footer is encrypted.
inline std::string TrailingMagic(const std::vector<uint8_t>& file) {
  if (file.size() < 4) return "";
  return std::string(file.end() - 4, file.end());
}

// The footer bytes (the serialized FileMetaData) of a plaintext-footer file,
// or nullopt when the length field does not fit the file.
inline std::optional<std::span<const uint8_t>> FooterBytes(const std::vector<uint8_t>& file) {
  if (file.size() < 12) return std::nullopt;
  const size_t at = file.size() - 8;
  const uint32_t length = uint32_t{file[at]} | uint32_t{file[at + 1]} << 8 | uint32_t{file[at + 2]} << 16 |
                          uint32_t{file[at + 3]} << 24;
  if (length > file.size() - 12) return std::nullopt;
  return std::span<const uint8_t>(file.data() + at - length, length);
}

// Every Parquet file under `dir` (recursively), encrypted ones included.
inline std::vector<std::filesystem::path> ParquetFilesUnder(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    if (!entry.is_regular_file()) continue;
    const std::string name = entry.path().filename().string();
    if (name.ends_with(".parquet") || name.ends_with(".parquet.encrypted")) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace floe::parquet::testing
