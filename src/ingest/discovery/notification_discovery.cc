#include "ingest/discovery/notification_discovery.h"

#include <algorithm>
#include <thread>
#include <utility>

#include "aws/sqs/s3_event.h"
#include "ingest/discovery/cda_discovery.h"
#include "ingest/discovery/glob.h"
#include "ingest/discovery/landing_path.h"

namespace floe::ingest {

namespace {

// Receives per Discover at most (ten notifications each): a poll stays bounded
// while a backlog drains over several polls.
constexpr int kMaxReceivesPerDiscover = 1000;

// >0 when S3 sequencer `a` is newer than `b`; an absent one ("") is older than any.
int CompareSequencersOrEmpty(std::string_view a, std::string_view b) {
  if (a.empty() || b.empty()) return a.empty() == b.empty() ? 0 : (a.empty() ? -1 : 1);
  return aws::sqs::CompareSequencers(a, b);
}

bool SameWatermarks(const std::map<std::string, TableWatermark>& a,
                    const std::map<std::string, TableWatermark>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const auto& x, const auto& y) {
    return x.first == y.first && x.second.last_successful_write_ms == y.second.last_successful_write_ms &&
           x.second.fingerprints == y.second.fingerprints;
  });
}

}  // namespace

Result<std::unique_ptr<NotificationDiscovery>> NotificationDiscovery::Make(
    const SourceConfig& config, std::unique_ptr<Discovery> listing, std::shared_ptr<FileIO> io,
    std::unique_ptr<NotificationSource> source, NotificationDiscoveryOptions options) {
  if (!listing || !io || !source) return Status::InvalidArgument("[source] notifications: nothing to wrap");
  PrefixDiscovery* prefix = nullptr;
  if (config.discovery == DiscoveryKind::kPrefix) {
    prefix = dynamic_cast<PrefixDiscovery*>(listing.get());
    if (prefix == nullptr)
      return Status::InvalidArgument("[source] notifications: the prefix listing is missing");
  } else if (config.discovery != DiscoveryKind::kCda) {
    return Status::InvalidArgument(std::string("[source] notifications apply to files, not to discovery \"") +
                                   DiscoveryKindName(config.discovery) + "\"");
  }
  options.max_held = std::max<int64_t>(1, options.max_held);
  return std::unique_ptr<NotificationDiscovery>(new NotificationDiscovery(
      config, std::move(listing), prefix, std::move(io), std::move(source), options));
}

NotificationDiscovery::NotificationDiscovery(SourceConfig config, std::unique_ptr<Discovery> listing,
                                             PrefixDiscovery* prefix, std::shared_ptr<FileIO> io,
                                             std::unique_ptr<NotificationSource> source,
                                             NotificationDiscoveryOptions options)
    : config_(std::move(config)),
      root_(ListingRoot(config_.uri)),
      listing_(std::move(listing)),
      prefix_(prefix),
      io_(std::move(io)),
      source_(std::move(source)),
      options_(options) {}

void NotificationDiscovery::Take(NotificationBatch batch, std::vector<std::string>& warnings) {
  for (Notification& notification : batch.notifications) pending_.push_back(std::move(notification));
  pending_lost_ = pending_lost_ || batch.lost;
  for (std::string& warning : batch.warnings) warnings.push_back(std::move(warning));
  for (const std::string& line : batch.unreadable) {
    ++unreadable_;
    warnings.push_back(line + "; not an S3 event notification floe can read, left in " + source_->name() +
                       " for its redrive policy (" + std::to_string(unreadable_) + " unreadable so far)");
  }
}

Status NotificationDiscovery::Drain(std::vector<std::string>& warnings) {
  for (int receive = 0; receive < kMaxReceivesPerDiscover; ++receive) {
    if (static_cast<int64_t>(held_.size() + pending_.size()) >= options_.max_held) {
      if (!warned_full_) {
        warnings.push_back(source_->name() + ": " + std::to_string(held_.size()) +
                           " notifications are held ([source] max_messages), so receiving pauses until the "
                           "files they announce are committed");
      }
      warned_full_ = true;
      return Status::OK();
    }
    warned_full_ = false;
    auto batch = source_->Receive(0);
    if (!batch.ok()) {
      if (batch.status().kind() == ErrorKind::kCancelled) return Status::OK();
      if (!batch.status().retryable()) return batch.status().WithContext(source_->name());
      warnings.push_back(source_->name() + ": " + batch.status().ToString() +
                         " (new files are found by the next poll or backfill listing)");
      return Status::OK();
    }
    if (batch->empty()) return Status::OK();
    Take(std::move(*batch), warnings);
  }
  return Status::OK();
}

NotificationDiscovery::Awaited& NotificationDiscovery::Link(const std::string& id, const std::string& uri) {
  Awaited& awaited = awaited_[uri];
  if (!id.empty()) {
    awaited.notifications.insert(id);
    held_[id].insert(uri);
  }
  return awaited;
}

void NotificationDiscovery::LookAt(const std::vector<std::string>& ids, const FileEvent& event,
                                   int64_t now_ms, DiscoveryResult& result) {
  auto info = io_->Stat(event.path);
  if (!info.ok()) {
    if (info.status().kind() == ErrorKind::kNotFound) return;  // gone since: nothing a listing would find
    result.warnings.push_back(event.path + ": " + info.status().ToString() +
                              (ids.empty() ? "" : "; its notification goes back to the queue"));
    ReleaseNow(ids);
    return;
  }
  info->path = event.path;  // the path as notified and listed, whatever Stat reports
  PrefixDiscovery::FileVerdict verdict =
      prefix_->Classify(*info, now_ms, /*settle=*/event.kind == FileEvent::Kind::kFound);
  if (verdict.schema) {
    if (auto collision = prefix_->CheckOneSchema(schema_of_, verdict.unit.table, *verdict.schema)) {
      result.table_errors[verdict.unit.table] = std::move(*collision);
    }
  }
  switch (verdict.kind) {
    case PrefixDiscovery::FileVerdict::Kind::kUnit: {
      Awaited& awaited = awaited_[event.path];
      for (const std::string& id : ids) Link(id, event.path);
      if (CompareSequencersOrEmpty(event.sequencer, awaited.sequencer) > 0)
        awaited.sequencer = event.sequencer;
      awaited.unit = std::move(verdict.unit);
      settling_.erase(event.path);
      break;
    }
    case PrefixDiscovery::FileVerdict::Kind::kSettling:
      settling_.insert(event.path);
      result.settling.Add(verdict.eligible_at_ms);
      break;
    case PrefixDiscovery::FileVerdict::Kind::kLinkOutside: result.warnings.push_back(verdict.warning); break;
    case PrefixDiscovery::FileVerdict::Kind::kNotOurs:
    case PrefixDiscovery::FileVerdict::Kind::kFilteredOut: break;
  }
}

void NotificationDiscovery::AcknowledgeNow(std::vector<std::string> ids, std::vector<std::string>& warnings) {
  ids.insert(ids.end(), unacknowledged_.begin(), unacknowledged_.end());
  if (ids.empty()) return;
  Status acknowledged = source_->Acknowledge(ids);
  if (acknowledged.ok()) {
    unacknowledged_.clear();
    return;
  }
  warnings.push_back(source_->name() + ": " + acknowledged.ToString() +
                     " (the notifications are deleted at the next try; delivered again meanwhile they change "
                     "nothing)");
  // Acknowledging one that went through already is a no-op for the source.
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  unacknowledged_ = std::move(ids);
}

void NotificationDiscovery::ReleaseNow(const std::vector<std::string>& ids) {
  std::vector<std::string> released;
  for (const std::string& id : ids) {
    auto held = held_.find(id);
    manifest_notifications_.erase(id);
    if (held == held_.end()) {
      released.push_back(id);
      continue;
    }
    for (const std::string& uri : held->second) {
      auto awaited = awaited_.find(uri);
      if (awaited == awaited_.end()) continue;
      awaited->second.notifications.erase(id);
      if (awaited->second.notifications.empty()) awaited_.erase(awaited);
    }
    held_.erase(held);
    released.push_back(id);
  }
  source_->Release(released);
}

Result<DiscoveryResult> NotificationDiscovery::Discover(
    const std::map<std::string, TableWatermark>& watermarks, int64_t now_ms) {
  DiscoveryResult result;
  result.warnings = std::exchange(pending_warnings_, {});
  FLOE_RETURN_IF_ERROR(Drain(result.warnings));
  std::vector<Notification> arrived = std::exchange(pending_, {});
  const bool lost = std::exchange(pending_lost_, false);

  // What each notification names. prefix: the files to look at (per path, the
  // notifications naming it and the newest sequencer); cda: manifest.json
  // changing, and part files waiting for their folder.
  struct Named {
    std::vector<std::string> ids;
    FileEvent event;
  };
  std::map<std::string, Named> to_look;
  std::vector<std::string> new_ids;  // notifications new this call (to acknowledge if they hold nothing)
  std::vector<std::string> triggered_by;
  bool manifest_changed = false;
  for (const Notification& notification : arrived) {
    if (!notification.id.empty()) {
      // Delivered again while held (or twice in one answer): already in hand.
      if (held_.count(notification.id) || manifest_notifications_.count(notification.id)) continue;
      if (std::find(new_ids.begin(), new_ids.end(), notification.id) != new_ids.end()) continue;
      new_ids.push_back(notification.id);
    }
    for (const FileEvent& event : notification.events) {
      if (event.kind == FileEvent::Kind::kRemoved) continue;
      std::optional<std::string_view> relative = RelativeTo(root_, event.path);
      if (!relative) continue;  // outside the uri
      if (prefix_ != nullptr) {
        Named& named = to_look[event.path];
        if (!notification.id.empty()) named.ids.push_back(notification.id);
        if (named.event.path.empty()) {
          named.event = event;
        } else {
          if (CompareSequencersOrEmpty(event.sequencer, named.event.sequencer) > 0) {
            named.event.sequencer = event.sequencer;
          }
          if (event.kind == FileEvent::Kind::kComplete) named.event.kind = FileEvent::Kind::kComplete;
        }
        continue;
      }
      if (*relative == "manifest.json") {
        manifest_changed = true;
        if (!notification.id.empty()) triggered_by.push_back(notification.id);
        continue;
      }
      std::optional<CdaPartPath> part = ParseCdaPartPath(*relative);
      if (!part || notification.id.empty()) continue;
      if (!GlobFilterAccepts(config_.include, config_.exclude, part->table, GlobMode::kName)) continue;
      Awaited& awaited = Link(notification.id, event.path);
      awaited.folder_ms = part->folder_ms;
    }
  }

  // The listing: a backfill, or (cda) the manifest check.
  bool list = lost;
  if (!started_) {
    started_ = true;
    if (options_.backfill_on_start) {
      list = true;
    } else {
      last_listing_ms_ = now_ms;  // the interval counts from the start
    }
  }
  if (last_listing_ms_ && options_.backfill_interval_ms > 0 &&
      now_ms - *last_listing_ms_ >= options_.backfill_interval_ms) {
    list = true;
  }
  if (prefix_ == nullptr) {
    const bool waiting = std::any_of(awaited_.begin(), awaited_.end(), [](const auto& entry) {
      return entry.second.folder_ms >= 0 && !entry.second.folder_committed;
    });
    if (manifest_changed) list = true;
    if (waiting && (!last_cda_run_ms_ || now_ms - *last_cda_run_ms_ >= options_.recheck_interval_ms))
      list = true;
  }
  // The pipeline discovers again at once when it learned a table's watermark
  // the listing did not have (it stores what the listing returned, which is
  // no news): the listing must see it too.
  if (listed_last_time_ && !SameWatermarks(watermarks, expected_watermarks_)) list = true;
  listed_last_time_ = list;
  std::set<std::string> listed_uris;
  if (list) {
    auto listing = listing_->Discover(watermarks, now_ms);
    if (!listing.ok()) {
      // The notifications this poll took are given back, to try again when
      // they return (a manifest that is not there yet, a listing error).
      std::vector<std::string> back;
      for (const std::string& id : new_ids) {
        if (!held_.count(id)) back.push_back(id);
      }
      ReleaseNow(back);
      return listing.status();
    }
    DiscoveryResult& listed = *listing;
    ++listings_;
    last_listing_ms_ = now_ms;
    last_cda_run_ms_ = now_ms;
    expected_watermarks_ = watermarks;
    for (const TableWatermark& watermark : listed.new_watermarks)
      expected_watermarks_[watermark.table] = watermark;
    for (std::string& warning : listed.warnings) result.warnings.push_back(std::move(warning));
    listed.warnings.clear();
    std::vector<std::string> warnings = std::move(result.warnings);
    result = std::move(listed);
    result.warnings = std::move(warnings);
    for (const SourceUnit& unit : result.files) listed_uris.insert(unit.uri);
    if (prefix_ == nullptr) {
      // Which folders the manifest commits now (tables with an error keep their old state).
      std::map<std::string, int64_t> committed_ms;
      for (const auto& [table, watermark] : watermarks)
        committed_ms[table] = watermark.last_successful_write_ms;
      for (const TableWatermark& watermark : result.new_watermarks) {
        committed_ms[watermark.table] = watermark.last_successful_write_ms;
      }
      for (auto& [uri, awaited] : awaited_) {
        if (awaited.folder_ms < 0 || awaited.folder_committed) continue;
        std::optional<std::string_view> relative = RelativeTo(root_, uri);
        std::optional<CdaPartPath> part = relative ? ParseCdaPartPath(*relative) : std::nullopt;
        auto committed = part ? committed_ms.find(part->table) : committed_ms.end();
        if (committed != committed_ms.end() && awaited.folder_ms <= committed->second)
          awaited.folder_committed = true;
      }
      // The manifest notifications wait for what the check found.
      for (const std::string& id : triggered_by) {
        for (const SourceUnit& unit : result.files) Link(id, unit.uri);
        manifest_notifications_.insert(id);
      }
    }
  }

  // prefix: the notified files, as a listing would see them now.
  for (auto& [path, named] : to_look) {
    if (listed_uris.count(path)) {
      // The listing returned it: held like a looked-at file (given back if not recorded).
      for (const std::string& id : named.ids) Link(id, path);
      if (!named.ids.empty()) {
        // A named copy: clang 14 cannot capture a structured binding.
        const std::string& uri = path;
        auto listed = std::find_if(result.files.begin(), result.files.end(),
                                   [&uri](const SourceUnit& unit) { return unit.uri == uri; });
        awaited_[path].unit = *listed;
      }
      continue;
    }
    auto awaited = awaited_.find(path);
    if (awaited != awaited_.end() && !named.event.sequencer.empty() && !awaited->second.sequencer.empty() &&
        aws::sqs::CompareSequencers(named.event.sequencer, awaited->second.sequencer) <= 0) {
      // A duplicate, or an older event arriving late: what it names is in hand.
      for (const std::string& id : named.ids) Link(id, path);
      continue;
    }
    LookAt(named.ids, named.event, now_ms, result);
  }
  // prefix: files found in new directories that were still settling.
  for (auto it = settling_.begin(); it != settling_.end();) {
    const std::string path = *it;
    it = settling_.erase(it);
    if (listed_uris.count(path) || awaited_.count(path)) continue;
    FileEvent event;
    event.kind = FileEvent::Kind::kFound;
    event.path = path;
    LookAt({}, event, now_ms, result);
  }

  // Units found by notifications and not yet reported recorded.
  for (const auto& [uri, awaited] : awaited_) {
    if (awaited.unit && !listed_uris.count(uri)) result.files.push_back(*awaited.unit);
  }

  // Notifications that name nothing floe takes are done now.
  std::vector<std::string> done;
  for (const std::string& id : new_ids) {
    if (!held_.count(id) && !manifest_notifications_.count(id)) done.push_back(id);
  }
  for (const std::string& id : triggered_by) {
    if (!held_.count(id)) {
      manifest_notifications_.erase(id);
      done.push_back(id);
    }
  }
  AcknowledgeNow(std::move(done), result.warnings);

  std::set<std::string> tables(result.tables.begin(), result.tables.end());
  for (const SourceUnit& unit : result.files) tables.insert(unit.table);
  for (const auto& [table, error] : result.table_errors) tables.erase(table);
  result.tables.assign(tables.begin(), tables.end());
  std::sort(result.files.begin(), result.files.end(), [](const SourceUnit& a, const SourceUnit& b) {
    return a.table != b.table ? a.table < b.table : a.order_key < b.order_key;
  });
  return result;
}

bool NotificationDiscovery::WaitForNotifications(std::chrono::steady_clock::time_point until,
                                                 const std::atomic<bool>& stop) {
  const auto now = std::chrono::steady_clock::now();
  if (stop.load() || now >= until) return false;
  if (!pending_.empty() || pending_lost_) return true;
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - now).count();
  auto pause = [&](int64_t ms) {
    std::this_thread::sleep_for(std::chrono::milliseconds(std::min<int64_t>(left, ms)));
  };
  if (static_cast<int64_t>(held_.size()) >= options_.max_held) {
    pause(100);  // full: the next poll's commits make room
    return false;
  }
  auto batch = source_->Receive(std::min<int64_t>(left, source_->max_wait_ms()));
  if (!batch.ok()) {
    if (batch.status().kind() != ErrorKind::kCancelled && !receive_failing_) {
      pending_warnings_.push_back(
          source_->name() + ": " + batch.status().ToString() +
          " (floe keeps trying; new files are found once it answers, or by the backfill "
          "listing)");
    }
    receive_failing_ = batch.status().kind() != ErrorKind::kCancelled;
    pause(1000);  // a failing queue is not asked in a tight loop
    return false;
  }
  receive_failing_ = false;
  const bool arrived = !batch->notifications.empty() || batch->lost || !batch->unreadable.empty();
  Take(std::move(*batch), pending_warnings_);
  return arrived;
}

std::vector<std::string> NotificationDiscovery::AwaitedUnits() const {
  std::vector<std::string> uris;
  uris.reserve(awaited_.size());
  for (const auto& [uri, awaited] : awaited_) uris.push_back(uri);
  return uris;
}

std::vector<std::string> NotificationDiscovery::SettleUnits(const std::map<std::string, UnitFate>& fates) {
  std::vector<std::string> warnings;
  std::vector<std::string> done;
  std::vector<std::string> release;
  for (const auto& [uri, fate] : fates) {
    auto it = awaited_.find(uri);
    if (it == awaited_.end()) continue;
    Awaited& awaited = it->second;
    bool finished = fate == UnitFate::kDone;
    if (fate == UnitFate::kPending) awaited.unit.reset();  // recorded: the ledger has it now
    if (fate == UnitFate::kUnknown) {
      if (awaited.unit) {
        // Returned but not recorded (its table was blocked): back to the queue.
        release.insert(release.end(), awaited.notifications.begin(), awaited.notifications.end());
        if (awaited.notifications.empty()) awaited_.erase(it);
        continue;
      }
      finished = awaited.folder_committed;  // cda: the manifest commits its folder, yet the check left it out
    }
    if (!finished) continue;
    for (const std::string& id : awaited.notifications) {
      auto held = held_.find(id);
      if (held == held_.end()) continue;
      held->second.erase(uri);
      if (held->second.empty()) {
        held_.erase(held);
        manifest_notifications_.erase(id);
        done.push_back(id);
      }
    }
    awaited_.erase(it);
  }
  if (!release.empty()) {
    std::sort(release.begin(), release.end());
    release.erase(std::unique(release.begin(), release.end()), release.end());
    ReleaseNow(release);
  }
  AcknowledgeNow(std::move(done), warnings);
  return warnings;
}

}  // namespace floe::ingest
