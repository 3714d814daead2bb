// Fuzzes the key index's file readers: index files sit in a state
// directory anyone may damage, so they are untrusted input. Byte 0 picks:
//   0: the rest is a run file (keys-*.run): opened; if that works, every
//      entry is scanned and every key scanned is looked up again;
//   1: the rest is one block payload (exact keys), 2: the same, hashed keys;
//   3: the rest is a manifest (index-*.bin).
// Beyond "no crash, no hang, no huge allocation": a run or block that reads
// holds strictly increasing keys, and a lookup of a scanned key finds the
// same entry the scan returned.
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "fuzz_checks.h"
#include "ingest/merge/key_index_block.h"
#include "ingest/merge/key_index_manifest.h"
#include "ingest/merge/key_index_run.h"
#include "io/memory_file.h"

namespace {

using namespace floe;
using namespace floe::ingest::key_index_internal;
using floe::ingest::KeyId;

bool SameEntry(const RunEntry& a, const RunEntry& b) {
  return a.key == b.key && a.order == b.order && a.tombstone == b.tombstone && a.value == b.value &&
         (a.tombstone || a.file == b.file);
}

void CheckRun(const uint8_t* data, size_t size) {
  auto file = std::make_unique<MemoryInputFile>("fuzz.run", std::vector<uint8_t>(data, data + size));
  auto run = RunReader::Open(std::move(file));
  if (!run.ok()) return;
  RunScanner scanner(**run);
  BlockCursor cursor;
  std::optional<RunEntry> found;
  std::optional<KeyId> previous;
  for (uint64_t seen = 0; seen <= (*run)->info().entries; ++seen) {
    auto next = scanner.Next();
    if (!next.ok() || *next == nullptr) return;
    const RunEntry entry = **next;
    if (previous) CHECK_PROPERTY(KeyLess(*previous, entry.key));
    previous = entry.key;
    CHECK_PROPERTY(entry.value >= 0);
    if (!entry.tombstone) CHECK_PROPERTY((*run)->FilePath(entry.file) != nullptr);
    CHECK_PROPERTY((*run)->MayContain(entry.key, KeyBloom::HashOf(entry.key)));
    if (!(*run)->Find(entry.key, cursor, &found).ok()) return;
    CHECK_PROPERTY(found.has_value() && SameEntry(*found, entry));
  }
}

void CheckBlock(const uint8_t* data, size_t size, bool hashed) {
  std::vector<uint8_t> padded(data, data + size);
  padded.resize(size + kBlockPadding, 0);
  auto view = BlockView::Parse(std::span<const uint8_t>(padded.data(), size), hashed);
  if (!view.ok()) return;
  std::vector<RunEntry> all;
  view->AppendAll(all);
  CHECK_PROPERTY(all.size() == view->size() && !all.empty() && all.size() <= kMaxBlockEntries);
  for (size_t i = 0; i < all.size(); ++i) {
    if (i > 0) CHECK_PROPERTY(KeyLess(all[i - 1].key, all[i].key));
    CHECK_PROPERTY(all[i].value >= 0);
    CHECK_PROPERTY(SameEntry(view->Entry(i), all[i]));
    CHECK_PROPERTY(view->Find(all[i].key) == static_cast<int64_t>(i));
  }
  // What decodes re-encodes to a block that decodes to the same entries.
  std::vector<uint8_t> again;
  EncodeBlock(all, hashed, again);
  const size_t again_size = again.size();
  again.resize(again_size + kBlockPadding, 0);
  auto reparsed = BlockView::Parse(std::span<const uint8_t>(again.data(), again_size), hashed);
  CHECK_PROPERTY(reparsed.ok());
  for (size_t i = 0; i < all.size(); ++i) CHECK_PROPERTY(SameEntry(reparsed->Entry(i), all[i]));
}

void CheckManifest(const uint8_t* data, size_t size) {
  auto manifest = DecodeManifest(std::span<const uint8_t>(data, size));
  if (!manifest.ok()) return;
  for (const ManifestRun& run : manifest->runs) CHECK_PROPERTY(IsRunName(run.name));
  auto again = DecodeManifest(EncodeManifest(*manifest));
  CHECK_PROPERTY(again.ok() && again->runs.size() == manifest->runs.size());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  switch (data[0] % 4) {
    case 0: CheckRun(data + 1, size - 1); break;
    case 1: CheckBlock(data + 1, size - 1, false); break;
    case 2: CheckBlock(data + 1, size - 1, true); break;
    default: CheckManifest(data + 1, size - 1); break;
  }
  return 0;
}
