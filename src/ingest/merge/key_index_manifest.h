// Internal to floe_ingest_merge: the key index manifest — which runs make up
// the index of one table snapshot — and the names of the index's files.
//
// File `index-<snapshot id>.bin` in the table's state directory:
//   "FLOEKIM1", u32 version (1), i64 snapshot id, u32 length + spec text
//   ("keys=a,b;order=c;kind=hex"), u32 run count, per run (oldest first)
//   u32 length + file name, u64 entries, u64 bytes; then the CRC-32 of all
//   of it (u32).
// Run files are `keys-<16 hex digits>.run` beside it; a manifest naming
// anything else (a path, another directory) is Corruption, so a damaged or
// forged manifest can never make floe read or delete a file outside the
// directory. Written atomically (FileIO publishes on Close) before the
// snapshot it names is committed; a manifest of a snapshot the table does
// not hold is never used.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace floe::ingest::key_index_internal {

struct ManifestRun {
  std::string name;  // keys-<hex>.run
  uint64_t entries = 0;
  int64_t bytes = 0;
};

struct IndexManifest {
  int64_t snapshot_id = 0;
  std::string spec_text;
  std::vector<ManifestRun> runs;  // oldest first
};

std::vector<uint8_t> EncodeManifest(const IndexManifest& manifest);
// Corruption (without the path; the caller adds it) when the bytes are not a manifest.
Result<IndexManifest> DecodeManifest(std::span<const uint8_t> bytes);

// "<dir>/<name>" (dir may end in '/').
std::string IndexFilePath(const std::string& dir, std::string_view name);
// "index-<snapshot id>.bin".
std::string ManifestName(int64_t snapshot_id);
// A fresh run file name, "keys-<16 random hex digits>.run".
std::string NewRunName();
// What a file name in the state directory is.
std::optional<int64_t> SnapshotOfManifestName(std::string_view name);
bool IsRunName(std::string_view name);
// A FileIO temporary file of an index file (".<name>.tmp-..." of a process
// that died before publishing it).
bool IsIndexTempName(std::string_view name);
// The file name of `path` if it lies directly in `dir`.
std::optional<std::string_view> NameInDir(const std::string& dir, std::string_view path);

}  // namespace floe::ingest::key_index_internal
