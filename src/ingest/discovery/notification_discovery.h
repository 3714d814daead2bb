// NotificationDiscovery: a file discovery ([source] discovery "prefix" or
// "cda") that learns of new files from notifications — S3 event
// notifications through SQS, or inotify on a local directory
// (notification_source.h) — and lists the landing zone only as a backfill.
// It yields exactly the units the listing it wraps would (same uri, size,
// mtime, table, order key, partition values), so switching between listing
// and notifications reprocesses nothing: the ledger decides what is new.
//
// Contract (see Discovery):
// - Backfill: the wrapped listing runs at the first Discover
//   (backfill_on_start), every backfill_interval after the previous one (0:
//   never again) and whenever the source lost events; its result is the
//   listing's own (table errors, watermarks, settling files, warnings).
// - prefix: a notified file under the uri is looked at (FileIO::Stat: its
//   current size and mtime, as a listing would see them; gone: nothing to
//   do) and classified like a listed file (PrefixDiscovery::Classify), so
//   include/exclude, hidden names, the format's files and table_from_path
//   apply; a notified file is complete (no settle), one the source only
//   found in a new directory settles, and is looked at again every
//   Discover until it has. Events of one key carrying S3 sequencers that
//   are not newer than the last one seen for it (a duplicate, or an older
//   event arriving late) are not looked at again.
// - cda: manifest.json changing runs the CDA discovery (which lists only
//   the tables whose manifest entry moved, after their watermark); a part
//   file of an included table waits for its folder to be committed, and
//   while such files wait the manifest is read again every
//   `recheck_interval_ms`. Other files are nothing for floe.
// - Notifications: one that announces nothing floe takes (a test event,
//   keys outside uri or include, removals, hidden or other files) is
//   acknowledged at once; the others are held until every unit they
//   announce is settled in the ledger (SettleUnits: done), and given back
//   to their queue when the pipeline did not record such a unit (its table
//   was blocked) or the file could not be looked at (a retryable error).
//   A notification delivered again while held changes nothing. Unreadable
//   ones are counted warnings, left to the queue's redrive policy. Receiving
//   pauses while `max_held` notifications are held (a warning says so).
// - Units found by notifications are returned by every Discover until the
//   pipeline's SettleUnits reports them recorded, so a repeated Discover
//   (the pipeline re-discovers when it learned a watermark) loses none; a
//   repeated Discover whose watermarks changed runs its listing again.
// - Receive errors: a retryable one is a warning (the next poll or backfill
//   finds the files), another is the returned error.
// Not thread-safe (the pipeline's loop calls it); the SQS source's keeper
// thread is its own.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ingest/discovery/discovery.h"
#include "ingest/discovery/notification_source.h"
#include "ingest/discovery/prefix_discovery.h"

namespace floe::ingest {

struct NotificationDiscoveryOptions {
  int64_t backfill_interval_ms = int64_t{3600} * 1000;  // 0: only the start listing
  bool backfill_on_start = true;
  int64_t recheck_interval_ms = 60'000;  // cda: how often waiting files look at the manifest again
  int64_t max_held = 10'000;             // notifications held at most before receiving pauses
};

class NotificationDiscovery final : public Discovery {
 public:
  // `listing` is what MakeDiscovery built for `config` (a PrefixDiscovery
  // or a CdaDiscovery), listing through `io`.
  static Result<std::unique_ptr<NotificationDiscovery>> Make(const SourceConfig& config,
                                                             std::unique_ptr<Discovery> listing,
                                                             std::shared_ptr<FileIO> io,
                                                             std::unique_ptr<NotificationSource> source,
                                                             NotificationDiscoveryOptions options);

  Result<DiscoveryResult> Discover(const std::map<std::string, TableWatermark>& watermarks,
                                   int64_t now_ms) override;
  bool WaitForNotifications(std::chrono::steady_clock::time_point until,
                            const std::atomic<bool>& stop) override;
  void SetStopFlag(const std::atomic<bool>* stop) override { source_->SetStopFlag(stop); }
  std::vector<std::string> AwaitedUnits() const override;
  std::vector<std::string> SettleUnits(const std::map<std::string, UnitFate>& fates) override;

  // Notifications held (tests, diagnostics).
  size_t held() const { return held_.size(); }
  // Listings run so far (tests).
  int64_t listings() const { return listings_; }

 private:
  NotificationDiscovery(SourceConfig config, std::unique_ptr<Discovery> listing, PrefixDiscovery* prefix,
                        std::shared_ptr<FileIO> io, std::unique_ptr<NotificationSource> source,
                        NotificationDiscoveryOptions options);

  // A unit a held notification announced.
  struct Awaited {
    std::set<std::string> notifications;  // the held notifications that announced it
    std::optional<SourceUnit> unit;       // found and not yet reported recorded: returned by every Discover
    std::string sequencer;                // the newest S3 sequencer seen for it
    int64_t folder_ms = -1;               // cda: the part file's folder timestamp
    bool folder_committed = false;        // cda: the manifest commits its folder; the ledger decides
  };

  // Receives what is there (up to max_held) into pending_.
  Status Drain(std::vector<std::string>& warnings);
  void Take(NotificationBatch batch, std::vector<std::string>& warnings);
  // Links notification `id` to unit `uri` (held until the unit is done).
  Awaited& Link(const std::string& id, const std::string& uri);
  // prefix: looks at a notified file; a unit found is kept in awaited_ and
  // linked to `ids`, which are released when the file cannot be looked at.
  void LookAt(const std::vector<std::string>& ids, const FileEvent& event, int64_t now_ms,
              DiscoveryResult& result);
  void AcknowledgeNow(std::vector<std::string> ids, std::vector<std::string>& warnings);
  void ReleaseNow(const std::vector<std::string>& ids);

  const SourceConfig config_;
  const std::string root_;
  std::unique_ptr<Discovery> listing_;
  PrefixDiscovery* const prefix_;  // listing_ as a prefix discovery; nullptr for cda
  std::shared_ptr<FileIO> io_;
  std::unique_ptr<NotificationSource> source_;
  const NotificationDiscoveryOptions options_;

  std::vector<Notification> pending_;  // received by WaitForNotifications, for the next Discover
  std::vector<std::string> pending_warnings_;
  bool pending_lost_ = false;
  std::map<std::string, std::set<std::string>> held_;  // notification id -> the unit uris it waits for
  std::map<std::string, Awaited> awaited_;             // by uri
  std::vector<std::string> unacknowledged_;            // to acknowledge again (an earlier try failed)
  std::set<std::string> settling_;                     // prefix: found files still settling
  std::map<std::string, std::string> schema_of_;       // prefix with table_from_path: table -> {schema}
  std::set<std::string> manifest_notifications_;       // cda: held until the run they triggered is recorded
  std::optional<int64_t> last_listing_ms_;
  std::optional<int64_t> last_cda_run_ms_;
  // The watermarks the pipeline passes next after storing the last listing's.
  std::map<std::string, TableWatermark> expected_watermarks_;
  bool listed_last_time_ = false;
  bool started_ = false;
  bool receive_failing_ = false;
  int64_t listings_ = 0;
  int64_t unreadable_ = 0;
  bool warned_full_ = false;
};

}  // namespace floe::ingest
