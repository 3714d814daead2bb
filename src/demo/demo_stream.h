// DemoChangeStream: the simulated change history of one demo table and the
// timestamp folder each change arrives in.
//
// Contract: a pure function of (seed, table index, options) and the
// sequence of GenerateFolders calls. Changes get strictly increasing seqvals
// (an update's before image, operation 3, shares its update's seqval, as in
// SQL Server CDC). Each call covers the next `count` folders: changes are
// born in a folder and ~10% arrive 1-3 folders later (never past the call's
// last folder, never in the empty folder); a delete is sometimes preceded by
// an update that arrives after it (it must not resurrect the row); deleted
// ids are sometimes re-inserted with a newer seqval; some ids change several
// times within one folder. Calls continue one history: the export generator
// replays earlier calls to append new folders.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "demo/demo_export.h"
#include "demo/demo_random.h"
#include "demo/demo_tables.h"

namespace floe::demo {

struct DemoChange {
  RowImage image;
  ChangeColumns columns;
};

// Folder timestamps are start_ms + k * kFolderIntervalMs + table_index * kTableOffsetMs.
inline constexpr int64_t kFolderIntervalMs = 5 * 60 * 1000;
inline constexpr int64_t kTableOffsetMs = 7 * 1000;

class DemoChangeStream {
 public:
  DemoChangeStream(uint64_t seed, int table_index, const DemoTable& table, const DemoExportOptions& options);

  // Generates the changes of the folders [next_folder(), next_folder() + count)
  // with the randomness of `round` (0 for the initial export). Folder
  // `empty_folder` (a global index), when set, receives no change. Returns the
  // changes per folder, in generation (seqval) order.
  std::vector<std::vector<DemoChange>> GenerateFolders(int round, int count, std::optional<int> empty_folder);

  int next_folder() const { return next_folder_; }
  int64_t FolderTimestamp(int folder) const;

 private:
  struct LiveRow {
    int64_t version = 1;
    int64_t createtime_us = 0;
    int64_t updatetime_us = 0;
    size_t slot = 0;  // index in live_ids_
  };
  struct Pending {
    DemoChange change;
    int arrival = 0;
  };
  void EmitInsert(DemoRandom& random, int arrival, int64_t change_us, std::vector<Pending>& out);
  void EmitUpdate(DemoRandom& random, int64_t id, int arrival, int64_t change_us, std::vector<Pending>& out);
  void EmitDelete(DemoRandom& random, int folder, int last_folder, int64_t change_us,
                  std::vector<Pending>& out);
  int LateFolder(DemoRandom& random, int folder, int last_folder, int64_t max_delay) const;
  // A new seqval (and maybe transaction) unless `same_seqval` (a before image).
  DemoChange MakeChange(DemoRandom& random, const RowImage& image, int32_t operation, int64_t change_us,
                        bool same_seqval = false);
  void AddLive(int64_t id, const LiveRow& row);
  void RemoveLive(int64_t id);
  int ArrivalFolder(DemoRandom& random, int folder, int last_folder) const;
  int64_t PickLiveId(DemoRandom& random) const;

  uint64_t seed_;
  int table_index_;
  DemoExportOptions options_;
  int64_t changes_per_folder_;
  int next_folder_ = 0;
  int64_t next_id_ = 1;
  uint64_t seqval_;
  int64_t lsn_;
  int64_t tx_id_;
  std::map<int64_t, LiveRow> live_;
  std::vector<int64_t> live_ids_;  // the keys of live_, for uniform picks
  std::vector<int64_t> deleted_ids_;
  std::optional<int> empty_folder_;  // the current call's
};

}  // namespace floe::demo
