#include "demo/demo_stream.h"

#include <algorithm>
#include <cmath>

namespace floe::demo {
namespace {

constexpr double kLateShare = 0.10;              // changes that arrive 1-3 folders late
constexpr double kReinsertShare = 0.15;          // inserts that bring back a deleted id
constexpr double kBeforeImageShare = 0.30;       // updates preceded by an operation-3 row
constexpr double kRepeatUpdateShare = 0.10;      // updates followed by another one of the same id
constexpr double kLateUpdateBeforeDelete = 0.5;  // deletes whose preceding update arrives after them
constexpr double kNewTransactionShare = 0.6;

}  // namespace

DemoChangeStream::DemoChangeStream(uint64_t seed, int table_index, const DemoTable& table,
                                   const DemoExportOptions& options)
    : seed_(seed), table_index_(table_index), options_(options) {
  const double insert_share = std::max(0.05, 1.0 - options.update_fraction - options.delete_fraction);
  // Net growth per change is the insert share minus the delete share.
  const double net_share = std::max(0.05, insert_share - options.delete_fraction);
  const double total_changes = std::ceil(static_cast<double>(TargetIds(table, options.rows)) / net_share);
  changes_per_folder_ =
      std::max<int64_t>(1, static_cast<int64_t>(std::ceil(total_changes / std::max(1, options.folders))));
  // Seqvals start below 0x10000000 and cross it half way, so their unpadded
  // hex text grows a digit: a consumer comparing the strings as they are
  // gets the order wrong.
  const uint64_t half_span = static_cast<uint64_t>(total_changes) * 4;
  seqval_ = half_span < 0x0FFFFF00ULL ? 0x10000000ULL - half_span : 0x100ULL;
  lsn_ = 0x2A0000000LL + table_index * 0x1000000LL;
  tx_id_ = 700000 + table_index * 100000;
}

int64_t DemoChangeStream::FolderTimestamp(int folder) const {
  return options_.start_ms + folder * kFolderIntervalMs + table_index_ * kTableOffsetMs;
}

std::vector<std::vector<DemoChange>> DemoChangeStream::GenerateFolders(int round, int count,
                                                                       std::optional<int> empty_folder) {
  DemoRandom random(
      MixKey({seed_, 0x73747265616DULL, static_cast<uint64_t>(table_index_), static_cast<uint64_t>(round)}));
  empty_folder_ = empty_folder;
  const int first = next_folder_;
  const int last = first + count - 1;
  std::vector<Pending> pending;
  for (int folder = first; folder <= last; ++folder) {
    if (empty_folder_ == folder) continue;
    const int64_t changes = std::max<int64_t>(1, changes_per_folder_ * random.Between(80, 120) / 100);
    const int64_t period_start_ms = FolderTimestamp(folder) - kFolderIntervalMs;
    const double insert_share = std::max(0.05, 1.0 - options_.update_fraction - options_.delete_fraction);
    for (int64_t j = 0; j < changes; ++j) {
      const int64_t change_us =
          (period_start_ms + (j + 1) * kFolderIntervalMs / (changes + 2)) * 1000 + random.Between(0, 999);
      const double draw = random.Unit();
      if (live_ids_.empty() || draw < insert_share) {
        EmitInsert(random, ArrivalFolder(random, folder, last), change_us, pending);
      } else if (draw < insert_share + options_.update_fraction) {
        const int64_t id = PickLiveId(random);
        const int arrival = ArrivalFolder(random, folder, last);
        EmitUpdate(random, id, arrival, change_us, pending);
        if (random.Chance(kRepeatUpdateShare)) EmitUpdate(random, id, arrival, change_us + 1, pending);
      } else {
        EmitDelete(random, folder, last, change_us, pending);
      }
    }
  }
  next_folder_ = last + 1;
  std::vector<std::vector<DemoChange>> by_folder(static_cast<size_t>(count));
  for (Pending& change : pending) {
    by_folder[static_cast<size_t>(change.arrival - first)].push_back(std::move(change.change));
  }
  return by_folder;
}

int DemoChangeStream::LateFolder(DemoRandom& random, int folder, int last_folder, int64_t max_delay) const {
  int arrival = std::min(last_folder, folder + static_cast<int>(random.Between(1, max_delay)));
  if (empty_folder_ == arrival) arrival = arrival < last_folder ? arrival + 1 : arrival - 1;
  return std::max(arrival, folder);
}

int DemoChangeStream::ArrivalFolder(DemoRandom& random, int folder, int last_folder) const {
  return random.Chance(kLateShare) ? LateFolder(random, folder, last_folder, 3) : folder;
}

int64_t DemoChangeStream::PickLiveId(DemoRandom& random) const {
  return live_ids_[random.Below(live_ids_.size())];
}

void DemoChangeStream::AddLive(int64_t id, const LiveRow& row) {
  LiveRow& stored = live_[id] = row;
  stored.slot = live_ids_.size();
  live_ids_.push_back(id);
}

void DemoChangeStream::RemoveLive(int64_t id) {
  auto it = live_.find(id);
  if (it == live_.end()) return;
  const size_t slot = it->second.slot;
  const int64_t moved = live_ids_.back();
  live_ids_[slot] = moved;
  live_[moved].slot = slot;
  live_ids_.pop_back();
  live_.erase(it);
}

DemoChange DemoChangeStream::MakeChange(DemoRandom& random, const RowImage& image, int32_t operation,
                                        int64_t change_us, bool same_seqval) {
  if (!same_seqval) {
    seqval_ += static_cast<uint64_t>(random.Between(1, 15));
    lsn_ += random.Between(1, 40);
    if (random.Chance(kNewTransactionShare)) ++tx_id_;
  }
  DemoChange change;
  change.image = image;
  change.columns.operation = operation;
  change.columns.seqval = seqval_;
  change.columns.lsn = lsn_;
  change.columns.tx_id = tx_id_;
  change.columns.payload_ts_ms = change_us / 1000;
  change.columns.connector_ts_ms = change_us / 1000 + random.Between(50, 3000);
  return change;
}

void DemoChangeStream::EmitInsert(DemoRandom& random, int arrival, int64_t change_us,
                                  std::vector<Pending>& out) {
  int64_t id;
  if (!deleted_ids_.empty() && random.Chance(kReinsertShare)) {
    const size_t pick = random.Below(deleted_ids_.size());
    id = deleted_ids_[pick];
    deleted_ids_[pick] = deleted_ids_.back();
    deleted_ids_.pop_back();
  } else {
    id = next_id_++;
  }
  AddLive(id, LiveRow{.version = 1, .createtime_us = change_us, .updatetime_us = change_us});
  const RowImage image{.id = id, .version = 1, .createtime_us = change_us, .updatetime_us = change_us};
  const int32_t operation = random.Chance(0.7) ? 2 : 0;
  out.push_back(Pending{MakeChange(random, image, operation, change_us), arrival});
}

void DemoChangeStream::EmitUpdate(DemoRandom& random, int64_t id, int arrival, int64_t change_us,
                                  std::vector<Pending>& out) {
  LiveRow& row = live_[id];
  const RowImage before{.id = id,
                        .version = row.version,
                        .createtime_us = row.createtime_us,
                        .updatetime_us = row.updatetime_us};
  row.version += 1;
  row.updatetime_us = change_us;
  const RowImage after{
      .id = id, .version = row.version, .createtime_us = row.createtime_us, .updatetime_us = change_us};
  DemoChange update = MakeChange(random, after, 4, change_us);
  if (random.Chance(kBeforeImageShare)) {
    out.push_back(Pending{MakeChange(random, before, 3, change_us, /*same_seqval=*/true), arrival});
  }
  out.push_back(Pending{std::move(update), arrival});
}

void DemoChangeStream::EmitDelete(DemoRandom& random, int folder, int last_folder, int64_t change_us,
                                  std::vector<Pending>& out) {
  const int64_t id = PickLiveId(random);
  int arrival = ArrivalFolder(random, folder, last_folder);
  if (random.Chance(kLateUpdateBeforeDelete)) {
    // The update is older than the delete but lands in a later folder.
    EmitUpdate(random, id, LateFolder(random, folder, last_folder, 2), change_us, out);
    arrival = folder;
  }
  const LiveRow& row = live_[id];
  const RowImage image{.id = id,
                       .version = row.version,
                       .createtime_us = row.createtime_us,
                       .updatetime_us = row.updatetime_us};
  out.push_back(Pending{MakeChange(random, image, 1, change_us + 1), arrival});
  RemoveLive(id);
  deleted_ids_.push_back(id);
}

}  // namespace floe::demo
