// PrimaryKeyIndex: where the live row of every key is in an Iceberg table,
// and which keys were deleted — the cache that turns upserts and deletes into
// position deletes (v2) or deletion-vector bits (v3) without equality deletes.
//
// Contract:
// - Keys: a single integer key column (int8..int64, date) is stored exactly
//   as an int64; any other key (strings, decimals, several columns) is
//   stored as the 128-bit hash of its canonical encoding (KeyEncoder), of
//   which the index keeps 95 bits (lo, and hi folded to 31 bits): the chance
//   of any collision among n keys is below n^2 / 2^96, 2^-49 for 10^7 keys
//   and 2^-32 for 2^32 keys. A null key column is an error naming the
//   column.
// - An entry is either live (data file, row position, ordering value) or a
//   tombstone (ordering value of the delete, deletion time in whole seconds,
//   rounded up). Tombstones deleted before the cutoff (SetTombstoneCutoff:
//   now - tombstone_retention) read as absent and are dropped when the runs
//   are merged into a new base.
// - Layout: an LSM of immutable sorted runs (key_index_run.h) in the table's
//   state directory, oldest ("the base") first; a key's newest entry is the
//   one in the newest run holding it. Memory holds only each run's fence
//   index (one key per block of 256 entries), file table and, for the runs
//   above the base, a Bloom filter; a lookup reads one block of the run that
//   holds the key (key_index_merge.h says how the runs are kept few).
// - Persistence: each commit's changes (KeyIndexDelta) become one new run
//   plus the manifest `index-<snapshot id>.bin` naming the runs of that
//   snapshot (key_index_manifest.h), both written atomically BEFORE the
//   snapshot is committed (Prepare), so the cost of saving is proportional
//   to the change. Runs are merged on a background thread (one merge at a
//   time); a finished merge is adopted by the owner (AdoptFinishedMerge,
//   under the table's lock), which rewrites the current snapshot's manifest
//   to name the merged run: a kill -9 at any point leaves the manifest of
//   the snapshot the table holds intact, and files nothing names are
//   removed later.
// - Load: the manifest of the table's current snapshot, its runs checked
//   (footers and CRCs; blocks are checked as they are read). Otherwise, when
//   the snapshots since the newest snapshot with a manifest only rewrote
//   files (Iceberg "replace": compaction, manifest rewrites), the index is
//   caught up from the data files those snapshots added (their rows' new
//   locations, one run) — proportional to the rewrite, not the table.
//   Otherwise (another writer's commit, a lost or damaged file) the live
//   entries are rebuilt by reading the key and ordering columns of every
//   live data file with its deletes applied (sorted externally in bounded
//   memory), keeping the tombstones of the newest index the directory still
//   has for an ancestor (or any snapshot), except where the key is live.
//   A damaged or foreign file, or one written for other key/ordering
//   columns, is ignored with a warning, never trusted. A table with equality
//   delete files cannot be rebuilt (NotSupported); floe never writes them.
// - Files kept: the manifests of the current and the previous snapshot and
//   the runs they name; others are deleted after a commit, and files that
//   nothing names (a merge or a process that died) once an hour old.
// Not thread-safe (the background merge only reads immutable runs and
// writes its own file).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "columnar/column.h"
#include "common/status.h"
#include "iceberg/spec/table_metadata.h"
#include "ingest/merge/murmur3_128.h"
#include "ingest/merge/order_value.h"
#include "io/file_io.h"

namespace floe::ingest {

// 128 bits identifying a key: {0, value} for exact integer keys, a hash otherwise.
struct KeyId {
  uint64_t hi = 0;
  uint64_t lo = 0;
  bool operator==(const KeyId&) const = default;
};

// Hash for hash maps keyed by KeyId: exact integer keys are {0, value} and
// often sequential, so both halves go through MurmurHash3's 64-bit finaliser.
struct KeyIdHash {
  size_t operator()(const KeyId& k) const { return MurmurMix64(k.lo ^ (k.hi * 0x9E3779B97F4A7C15ULL)); }
};

// Encodes the key of row `row` from the key columns (in key order).
class KeyEncoder {
 public:
  // `columns` are the key columns' types in key order; `names` their names for errors.
  static Result<KeyEncoder> Make(const std::vector<DataType>& types, std::vector<std::string> names);
  bool exact_integer() const { return exact_integer_; }
  Result<KeyId> KeyAt(const std::vector<const Column*>& columns, int64_t row) const;

 private:
  KeyEncoder() = default;
  std::vector<DataType> types_;
  std::vector<std::string> names_;
  bool exact_integer_ = false;
};

struct KeyIndexSpec {
  KeyIndexSpec() = default;
  KeyIndexSpec(std::vector<std::string> keys, OrderingSpec order)
      : key_columns(std::move(keys)), ordering(std::move(order)) {}
  // One ordering column.
  KeyIndexSpec(std::vector<std::string> keys, std::string order_column, OrderingKind order_kind)
      : key_columns(std::move(keys)), ordering{{{std::move(order_column), order_kind}}, false} {}
  std::vector<std::string> key_columns;
  OrderingSpec ordering;
};

// The changes of one commit to the index, in any order (the last change of
// a key wins). Memory: BytesPerChange() per change plus the distinct file paths.
class KeyIndexDelta {
 public:
  static size_t BytesPerChange();
  void Reserve(size_t changes);
  void PutLive(const KeyId& key, std::string_view data_file, int64_t position, const OrderValue& order);
  void PutTombstone(const KeyId& key, const OrderValue& order, int64_t deleted_at_ms);
  size_t size() const;
  bool empty() const { return size() == 0; }

  struct Impl;

 private:
  friend class PrimaryKeyIndex;
  std::shared_ptr<Impl> impl_;
};

class PrimaryKeyIndex {
 public:
  struct Entry {
    bool tombstone = false;
    std::string_view data_file;  // live only; valid until the index's runs change
    int64_t position = 0;        // live only
    OrderValue order;
    int64_t deleted_at_ms = 0;  // tombstone only
  };

  // An empty index whose files live in `dir` of `state_io`.
  PrimaryKeyIndex(std::shared_ptr<FileIO> state_io, std::string dir);
  ~PrimaryKeyIndex();  // cancels a background merge
  PrimaryKeyIndex(PrimaryKeyIndex&&) noexcept;
  PrimaryKeyIndex& operator=(PrimaryKeyIndex&&) noexcept;

  Result<std::optional<Entry>> Find(const KeyId& key) const;
  // out[i] for keys[i]: each run is read in key order, so a batch reads each
  // block it needs once. An error (a damaged block) names the run file.
  Status FindMany(const std::vector<KeyId>& keys, std::vector<std::optional<Entry>>* out) const;
  // Tombstones deleted before `cutoff_ms` read as absent from now on.
  void SetTombstoneCutoff(int64_t cutoff_ms);

  // Saving one commit's changes, around the commit of `snapshot_id`:
  // Prepare writes the delta's run and the snapshot's manifest; after the
  // commit succeeded Publish makes them the index and removes files no
  // longer needed; after it definitely failed Discard deletes them (after
  // an unknown outcome, neither: reload the index).
  struct PendingSave {
    int64_t snapshot_id = 0;
    std::string manifest_path;
    std::string run_path;  // "" when the delta was empty
  };
  Result<PendingSave> Prepare(KeyIndexDelta delta, int64_t snapshot_id);
  // `warnings` (optional) receives one line per file that could not be deleted.
  void Publish(const PendingSave& saved, std::vector<std::string>* warnings = nullptr);
  void Discard(const PendingSave& saved);
  // Prepare + Publish: changes saved for a snapshot that exists already
  // (tombstones of a batch that commits nothing; tests).
  Status Save(KeyIndexDelta delta, int64_t snapshot_id, std::vector<std::string>* warnings = nullptr);

  // Merges. With background merges (the default) a merge that is due starts
  // on a thread of its own after each save and adoption; without, merges run
  // only in FinishMerges (a short-lived process, whose I/O then stays on one
  // thread). Adopt a finished merge (call where the table's lock is held,
  // between batches): the current snapshot's manifest is rewritten to name
  // the merged run, and the runs it replaced are deleted; returns whether it
  // adopted one. A failed merge is a warning.
  void SetBackgroundMerges(bool background);
  bool AdoptFinishedMerge(std::vector<std::string>* warnings = nullptr);
  // Runs (or waits for) the due merge and adopts it, repeatedly while merges
  // are due and `all` (`floe run --once` before it drops an index, so
  // short-lived processes do not pile up runs; tests).
  void FinishMerges(bool all, std::vector<std::string>* warnings = nullptr);

  // Whether a lookup or a merge found a run damaged (its error was
  // Corruption naming the file). DiscardDamaged then deletes the damaged
  // runs and the current snapshot's manifest, so the next Load catches up
  // from, or rebuilds without, them; the index must not be used after it.
  bool damaged() const;
  void DiscardDamaged(std::vector<std::string>* warnings = nullptr);

  // The snapshot the index reflects (nullopt: none yet).
  std::optional<int64_t> snapshot() const;
  size_t run_count() const;
  // Entries over all runs (a key in several runs counts once per run).
  uint64_t entry_count() const;
  // Bytes of the runs on disk, and what the index keeps in memory.
  int64_t DiskBytes() const;
  int64_t MemoryBytes() const;

  // See the contract above. `warnings` (optional) receives one line per file
  // ignored or not deleted and per rebuild. `reuse`: an index of the same
  // directory whose open runs may be shared and whose running merge is taken
  // over (a reload after another commit; `reuse` is left without it).
  // `sort_bytes`: the memory a rebuild or catch-up sorts in (~48 bytes per
  // entry; more entries are sorted in pieces and merged).
  static constexpr int64_t kDefaultSortBytes = int64_t{96} << 20;
  static Result<PrimaryKeyIndex> Load(std::shared_ptr<FileIO> state_io, const std::string& dir,
                                      const iceberg::TableMetadata& table, FileIO& table_io,
                                      const KeyIndexSpec& spec, std::vector<std::string>* warnings = nullptr,
                                      PrimaryKeyIndex* reuse = nullptr,
                                      int64_t sort_bytes = kDefaultSortBytes);
  // Catching up after a maintenance commit, off the ingest path (the
  // maintenance worker), in two steps: PrepareCatchUp reads the rows the
  // snapshots since the newest manifest moved (when they only rewrote files)
  // and writes them as a run, outside the table's lock; PublishCatchUp,
  // under the lock, names that run in the current snapshot's manifest,
  // unless the table moved on or the manifest exists meanwhile. Nothing to
  // do (the manifest exists, or a rewrite cannot be caught up): nullopt. A
  // CatchUp dropped unpublished deletes its run.
  class CatchUp {
   public:
    CatchUp(CatchUp&&) noexcept;
    CatchUp& operator=(CatchUp&&) noexcept;
    ~CatchUp();
    int64_t snapshot_id() const;
    struct State;

   private:
    friend class PrimaryKeyIndex;
    explicit CatchUp(std::unique_ptr<State> state);
    std::unique_ptr<State> state_;
  };
  static Result<std::optional<CatchUp>> PrepareCatchUp(std::shared_ptr<FileIO> state_io,
                                                       const std::string& dir,
                                                       const iceberg::TableMetadata& table, FileIO& table_io,
                                                       const KeyIndexSpec& spec,
                                                       int64_t sort_bytes = kDefaultSortBytes);
  // `table`: the table as it is now (refreshed under the lock). Whether the manifest was written.
  static Result<bool> PublishCatchUp(CatchUp catch_up, const iceberg::TableMetadata& table);

  // "<dir>/index-<snapshot id>.bin": the manifest of a snapshot.
  static std::string FilePath(const std::string& dir, int64_t snapshot_id);

  struct Impl;

 private:
  explicit PrimaryKeyIndex(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace floe::ingest
