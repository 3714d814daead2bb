// Key index manifests and file names: see key_index_manifest.h.
#include "ingest/merge/key_index_manifest.h"

#include <zlib.h>

#include <atomic>
#include <cstring>
#include <random>

#include "common/strings.h"
#include "ingest/merge/murmur3_128.h"

namespace floe::ingest::key_index_internal {
namespace {

constexpr char kMagic[8] = {'F', 'L', 'O', 'E', 'K', 'I', 'M', '1'};
constexpr uint32_t kVersion = 1;
constexpr uint32_t kMaxSpecBytes = 64 * 1024;
constexpr uint32_t kMaxRuns = 1 << 16;
constexpr std::string_view kRunHead = "keys-";
constexpr std::string_view kRunTail = ".run";
constexpr std::string_view kManifestHead = "index-";
constexpr std::string_view kManifestTail = ".bin";

void Put(std::vector<uint8_t>& out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

uint32_t Crc(std::span<const uint8_t> bytes) {
  return static_cast<uint32_t>(crc32(crc32(0, nullptr, 0), bytes.data(), static_cast<uInt>(bytes.size())));
}

bool IsLowerHex(std::string_view digits) {
  for (char c : digits) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

}  // namespace

std::vector<uint8_t> EncodeManifest(const IndexManifest& manifest) {
  std::vector<uint8_t> out(kMagic, kMagic + sizeof(kMagic));
  Put(out, kVersion, 4);
  Put(out, static_cast<uint64_t>(manifest.snapshot_id), 8);
  Put(out, manifest.spec_text.size(), 4);
  out.insert(out.end(), manifest.spec_text.begin(), manifest.spec_text.end());
  Put(out, manifest.runs.size(), 4);
  for (const ManifestRun& run : manifest.runs) {
    Put(out, run.name.size(), 4);
    out.insert(out.end(), run.name.begin(), run.name.end());
    Put(out, run.entries, 8);
    Put(out, static_cast<uint64_t>(run.bytes), 8);
  }
  Put(out, Crc(out), 4);
  return out;
}

Result<IndexManifest> DecodeManifest(std::span<const uint8_t> bytes) {
  if (bytes.size() < sizeof(kMagic) + 4 + 8 + 4 + 4 + 4) return Status::Corruption("file too short");
  if (std::memcmp(bytes.data(), kMagic, sizeof(kMagic)) != 0)
    return Status::Corruption("bad magic, not FLOEKIM1");
  const std::span<const uint8_t> body = bytes.first(bytes.size() - 4);
  uint32_t stored = 0;
  for (int i = 3; i >= 0; --i) stored = (stored << 8) | bytes[body.size() + static_cast<size_t>(i)];
  if (Crc(body) != stored) return Status::Corruption("CRC mismatch");
  size_t pos = sizeof(kMagic);
  auto fixed = [&](int n, const char* what) -> Result<uint64_t> {
    if (body.size() - pos < static_cast<size_t>(n))
      return Status::Corruption(std::string("truncated at ") + what);
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; --i) v = (v << 8) | body[pos + static_cast<size_t>(i)];
    pos += static_cast<size_t>(n);
    return v;
  };
  auto text = [&](uint64_t length, const char* what) -> Result<std::string> {
    if (body.size() - pos < length) return Status::Corruption(std::string("truncated at ") + what);
    std::string s(reinterpret_cast<const char*>(body.data() + pos), static_cast<size_t>(length));
    pos += static_cast<size_t>(length);
    return s;
  };
  IndexManifest manifest;
  FLOE_ASSIGN_OR_RETURN(uint64_t version, fixed(4, "version"));
  if (version != kVersion) return Status::Corruption("unknown version " + std::to_string(version));
  FLOE_ASSIGN_OR_RETURN(uint64_t snapshot, fixed(8, "snapshot id"));
  manifest.snapshot_id = static_cast<int64_t>(snapshot);
  FLOE_ASSIGN_OR_RETURN(uint64_t spec_size, fixed(4, "spec length"));
  if (spec_size > kMaxSpecBytes) return Status::Corruption("spec length " + std::to_string(spec_size));
  FLOE_ASSIGN_OR_RETURN(manifest.spec_text, text(spec_size, "spec"));
  FLOE_ASSIGN_OR_RETURN(uint64_t runs, fixed(4, "run count"));
  if (runs > kMaxRuns) return Status::Corruption("run count " + std::to_string(runs));
  for (uint64_t r = 0; r < runs; ++r) {
    FLOE_ASSIGN_OR_RETURN(uint64_t length, fixed(4, "run name length"));
    if (length > 64) return Status::Corruption("run name length " + std::to_string(length));
    ManifestRun run;
    FLOE_ASSIGN_OR_RETURN(run.name, text(length, "run name"));
    if (!IsRunName(run.name))
      return Status::Corruption("run " + std::to_string(r) + " is not a run file name");
    FLOE_ASSIGN_OR_RETURN(run.entries, fixed(8, "run entries"));
    FLOE_ASSIGN_OR_RETURN(uint64_t size, fixed(8, "run bytes"));
    if (size > uint64_t{INT64_MAX}) return Status::Corruption("run size out of range");
    run.bytes = static_cast<int64_t>(size);
    manifest.runs.push_back(std::move(run));
  }
  if (pos != body.size()) return Status::Corruption(std::to_string(body.size() - pos) + " unexpected bytes");
  return manifest;
}

std::string IndexFilePath(const std::string& dir, std::string_view name) {
  std::string path = dir;
  if (!path.empty() && path.back() != '/') path += '/';
  path += name;
  return path;
}

std::string ManifestName(int64_t snapshot_id) {
  return std::string(kManifestHead) + std::to_string(snapshot_id) + std::string(kManifestTail);
}

std::string NewRunName() {
  // Random per process, a counter within it: names never repeat.
  static std::atomic<uint64_t> counter{[] {
    std::random_device device;
    return (uint64_t{device()} << 32) ^ device();
  }()};
  uint64_t value = MurmurMix64(counter.fetch_add(0x9E3779B97F4A7C15ULL));
  std::string digits(16, '0');
  for (int i = 15; i >= 0; --i, value >>= 4) digits[static_cast<size_t>(i)] = kLowerHexDigits[value & 0xF];
  return std::string(kRunHead) + digits + std::string(kRunTail);
}

std::optional<int64_t> SnapshotOfManifestName(std::string_view name) {
  if (name.size() <= kManifestHead.size() + kManifestTail.size() ||
      name.substr(0, kManifestHead.size()) != kManifestHead ||
      name.substr(name.size() - kManifestTail.size()) != kManifestTail) {
    return std::nullopt;
  }
  std::string_view digits =
      name.substr(kManifestHead.size(), name.size() - kManifestHead.size() - kManifestTail.size());
  const size_t start = digits[0] == '-' ? 1 : 0;
  if (digits.size() == start || digits.size() - start > 19) return std::nullopt;
  for (size_t i = start; i < digits.size(); ++i) {
    if (digits[i] < '0' || digits[i] > '9') return std::nullopt;
  }
  try {
    return std::stoll(std::string(digits));
  } catch (...) {
    return std::nullopt;  // out of int64 range
  }
}

bool IsRunName(std::string_view name) {
  return name.size() == kRunHead.size() + 16 + kRunTail.size() &&
         name.substr(0, kRunHead.size()) == kRunHead &&
         name.substr(name.size() - kRunTail.size()) == kRunTail &&
         IsLowerHex(name.substr(kRunHead.size(), 16));
}

bool IsIndexTempName(std::string_view name) {
  if (name.empty() || name[0] != '.') return false;
  const size_t tmp = name.find(".tmp-");
  if (tmp == std::string_view::npos) return false;
  const std::string_view target = name.substr(1, tmp - 1);
  return IsRunName(target) || SnapshotOfManifestName(target).has_value();
}

std::optional<std::string_view> NameInDir(const std::string& dir, std::string_view path) {
  std::string prefix = dir;
  if (!prefix.empty() && prefix.back() != '/') prefix += '/';
  if (path.size() <= prefix.size() || path.compare(0, prefix.size(), prefix) != 0) return std::nullopt;
  std::string_view name = path.substr(prefix.size());
  if (name.find('/') != std::string_view::npos) return std::nullopt;
  return name;
}

}  // namespace floe::ingest::key_index_internal
