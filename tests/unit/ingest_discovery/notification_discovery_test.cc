// NotificationDiscovery's logic over a real landing zone on the local disk:
// the notifications come from a scripted source (what SQS would hand out,
// message by message; the SQS source itself is tested against moto in
// sqs_notifications_moto_test), the files from the local FileIO through a
// call-counting wrapper, and every unit is compared with what the wrapped
// listing finds for the same file.
#include "ingest/discovery/notification_discovery.h"

#include <gtest/gtest.h>

#include <deque>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "ingest/discovery/cda_discovery.h"
#include "io/fault_injecting_file_io.h"
#include "test_util.h"

namespace floe::ingest {
namespace {

namespace fs = std::filesystem;

constexpr int64_t kLater = int64_t{1} << 50;  // every file written by a test has settled

bool IsParquet(std::string_view path) {
  return path.ends_with(".parquet");
}

// Hands out scripted notification batches and records what was acknowledged
// and released, as a queue would see it.
class ScriptedNotifications final : public NotificationSource {
 public:
  struct Log {
    std::deque<NotificationBatch> batches;
    std::vector<std::string> acknowledged;
    std::vector<std::string> released;
    int receives = 0;
    Status fail_next_acknowledge;
  };
  explicit ScriptedNotifications(std::shared_ptr<Log> log) : log_(std::move(log)) {}

  Result<NotificationBatch> Receive(int64_t /*wait_ms*/) override {
    ++log_->receives;
    if (log_->batches.empty()) return NotificationBatch{};
    NotificationBatch batch = std::move(log_->batches.front());
    log_->batches.pop_front();
    return batch;
  }
  Status Acknowledge(const std::vector<std::string>& ids) override {
    if (!log_->fail_next_acknowledge.ok()) return std::exchange(log_->fail_next_acknowledge, Status::OK());
    log_->acknowledged.insert(log_->acknowledged.end(), ids.begin(), ids.end());
    return Status::OK();
  }
  void Release(const std::vector<std::string>& ids) override {
    log_->released.insert(log_->released.end(), ids.begin(), ids.end());
  }
  int64_t max_wait_ms() const override { return 0; }
  std::string name() const override { return "scripted queue"; }

 private:
  std::shared_ptr<Log> log_;
};

Notification Message(const std::string& id, std::vector<FileEvent> events) {
  Notification notification;
  notification.id = id;
  notification.events = std::move(events);
  return notification;
}

FileEvent Created(const std::string& path, const std::string& sequencer = "") {
  FileEvent event;
  event.path = path;
  event.sequencer = sequencer;
  return event;
}

std::vector<std::string> Uris(const DiscoveryResult& result) {
  std::vector<std::string> uris;
  for (const SourceUnit& unit : result.files) uris.push_back(unit.uri);
  return uris;
}

std::set<std::string> AsSet(const std::vector<std::string>& values) {
  return {values.begin(), values.end()};
}

class NotificationDiscoveryTest : public ::testing::Test {
 protected:
  std::string Write(const std::string& relative, const std::string& content = "PAR1") {
    fs::path path = root() / relative;
    fs::create_directories(path.parent_path());
    std::ofstream(path) << content;
    return path.string();
  }
  fs::path root() const { return dir_.path() / "orders"; }
  std::string Path(const std::string& relative) const { return (root() / relative).string(); }

  SourceConfig Config(DiscoveryKind kind = DiscoveryKind::kPrefix) const {
    SourceConfig config;
    config.discovery = kind;
    config.uri = root().string();
    config.notifications.kind = NotificationKind::kSqs;
    return config;
  }

  std::unique_ptr<NotificationDiscovery> Make(SourceConfig config,
                                              NotificationDiscoveryOptions options = {}) {
    fs::create_directories(root());
    io_ = std::make_shared<FaultInjectingFileIO>(MakeLocalFileIO());
    auto listing = MakeDiscovery(config, io_, IsParquet);
    EXPECT_TRUE(listing.ok()) << listing.status().ToString();
    auto discovery = NotificationDiscovery::Make(config, std::move(*listing), io_,
                                                 std::make_unique<ScriptedNotifications>(log_), options);
    EXPECT_TRUE(discovery.ok()) << discovery.status().ToString();
    return std::move(*discovery);
  }

  // What the plain listing makes of the landing zone.
  DiscoveryResult Listed(SourceConfig config, const std::map<std::string, TableWatermark>& watermarks = {}) {
    auto listing = MakeDiscovery(config, MakeLocalFileIO(), IsParquet);
    EXPECT_TRUE(listing.ok());
    auto listed = (*listing)->Discover(watermarks, kLater);
    EXPECT_TRUE(listed.ok()) << listed.status().ToString();
    return *listed;
  }

  void Arrive(std::vector<Notification> notifications) {
    NotificationBatch batch;
    batch.notifications = std::move(notifications);
    log_->batches.push_back(std::move(batch));
  }

  // Calls of one kind ("Stat", "List") made through the FileIO since the last Reset.
  int64_t Calls(const std::string& call) const {
    int64_t count = 0;
    for (const std::string& line : io_->CallLog()) {
      if (line.find(" " + call + " ") != std::string::npos) ++count;
    }
    return count;
  }

  static std::map<std::string, UnitFate> Fates(const std::vector<std::string>& uris, UnitFate fate) {
    std::map<std::string, UnitFate> fates;
    for (const std::string& uri : uris) fates[uri] = fate;
    return fates;
  }

  testing::TempDir dir_;
  std::shared_ptr<ScriptedNotifications::Log> log_ = std::make_shared<ScriptedNotifications::Log>();
  std::shared_ptr<FaultInjectingFileIO> io_;
};

TEST_F(NotificationDiscoveryTest, NotifiedFilesAreTheUnitsTheListingFinds) {
  SourceConfig config = Config();
  config.full_load_files = {"LOAD*"};
  Write("year=2026/LOAD0001.parquet", "12345");
  auto discovery = Make(config);
  // The start listing takes what is there.
  ASSERT_OK_AND_ASSIGN(DiscoveryResult first, discovery->Discover({}, kLater));
  EXPECT_EQ(Uris(first), std::vector<std::string>{Path("year=2026/LOAD0001.parquet")});
  EXPECT_EQ(discovery->listings(), 1);

  const std::string added = Write("year=2026/month=11/part-1.parquet", "abc");
  Arrive({Message("m1", {Created(added)})});
  io_->Reset({});
  ASSERT_OK_AND_ASSIGN(DiscoveryResult second, discovery->Discover({}, kLater));
  EXPECT_EQ(discovery->listings(), 1);
  EXPECT_EQ(Calls("List"), 0);
  EXPECT_EQ(Calls("Stat"), 1);
  ASSERT_EQ(second.files.size(), 1u);
  DiscoveryResult listed = Listed(config);
  ASSERT_EQ(listed.files.size(), 2u);
  const SourceUnit& want = listed.files[1].uri == added ? listed.files[1] : listed.files[0];
  const SourceUnit& got = second.files[0];
  EXPECT_EQ(got.uri, want.uri);
  EXPECT_EQ(got.table, want.table);
  EXPECT_EQ(got.size, want.size);
  EXPECT_EQ(got.mtime_ms, want.mtime_ms);
  EXPECT_EQ(got.order_key, want.order_key);
  EXPECT_EQ(got.partition_values, want.partition_values);
  EXPECT_EQ(second.tables, std::vector<std::string>{"orders"});
  // Held until the ledger says the unit is done.
  EXPECT_TRUE(log_->acknowledged.empty());
  EXPECT_EQ(discovery->AwaitedUnits(), std::vector<std::string>{added});
}

TEST_F(NotificationDiscoveryTest, NotificationsForNothingFloeTakesAreAcknowledgedAtOnce) {
  SourceConfig config = Config();
  config.include = {"keep/**"};
  auto discovery = Make(config);
  ASSERT_OK(discovery->Discover({}, kLater));
  const std::string outside = (dir_.path() / "elsewhere" / "x.parquet").string();
  fs::create_directories(dir_.path() / "elsewhere");
  std::ofstream(outside) << "x";
  Notification test_event;
  test_event.id = "test";
  test_event.test_event = true;
  FileEvent removed = Created(Write("keep/gone.parquet"));
  removed.kind = FileEvent::Kind::kRemoved;
  Arrive({test_event, Message("outside", {Created(outside)}),
          Message("excluded", {Created(Write("drop/a.parquet"))}),
          Message("hidden", {Created(Write("keep/_temporary/0/a.parquet"))}),
          Message("not-data", {Created(Write("keep/_SUCCESS")), Created(Write("keep/notes.txt"))}),
          Message("removed", {removed}), Message("vanished", {Created(Path("keep/never-written.parquet"))})});
  ASSERT_OK_AND_ASSIGN(DiscoveryResult result, discovery->Discover({}, kLater));
  EXPECT_TRUE(result.files.empty());
  EXPECT_EQ(AsSet(log_->acknowledged), (std::set<std::string>{"test", "outside", "excluded", "hidden",
                                                              "not-data", "removed", "vanished"}));
  EXPECT_EQ(discovery->held(), 0u);
  EXPECT_TRUE(discovery->AwaitedUnits().empty());
}

TEST_F(NotificationDiscoveryTest, AcknowledgedOnlyOnceEveryUnitItAnnouncedIsDone) {
  auto discovery = Make(Config());
  ASSERT_OK(discovery->Discover({}, kLater));
  const std::string a = Write("a.parquet");
  const std::string b = Write("b.parquet");
  Arrive({Message("both", {Created(a), Created(b)}), Message("only-b", {Created(b)})});
  ASSERT_OK_AND_ASSIGN(DiscoveryResult result, discovery->Discover({}, kLater));
  EXPECT_EQ(Uris(result), (std::vector<std::string>{a, b}));
  EXPECT_EQ(discovery->held(), 2u);

  // Recorded: pending in the ledger, not returned again.
  EXPECT_TRUE(discovery->SettleUnits(Fates({a, b}, UnitFate::kPending)).empty());
  ASSERT_OK_AND_ASSIGN(DiscoveryResult again, discovery->Discover({}, kLater));
  EXPECT_TRUE(again.files.empty());
  // b's batch committed: only-b goes, both waits for a.
  EXPECT_TRUE(discovery->SettleUnits(Fates({b}, UnitFate::kDone)).empty());
  EXPECT_EQ(log_->acknowledged, std::vector<std::string>{"only-b"});
  EXPECT_TRUE(discovery->SettleUnits(Fates({a}, UnitFate::kDone)).empty());
  EXPECT_EQ(AsSet(log_->acknowledged), (std::set<std::string>{"only-b", "both"}));
  EXPECT_EQ(discovery->held(), 0u);
  EXPECT_TRUE(log_->released.empty());
}

TEST_F(NotificationDiscoveryTest, DuplicatesAndOlderEventsChangeNothing) {
  auto discovery = Make(Config());
  ASSERT_OK(discovery->Discover({}, kLater));
  const std::string file = Write("a.parquet", "first version");
  Arrive({Message("new", {Created(file, "0055AED6DCD90281E5")})});
  ASSERT_OK_AND_ASSIGN(DiscoveryResult first, discovery->Discover({}, kLater));
  ASSERT_EQ(first.files.size(), 1u);
  const int64_t size = first.files[0].size;
  EXPECT_TRUE(discovery->SettleUnits(Fates({file}, UnitFate::kPending)).empty());

  // The same message delivered again, the same event in another message, and
  // an older event arriving late: none is looked at, and nothing is returned.
  Write("a.parquet", "a different, longer second version");
  io_->Reset({});
  Arrive({Message("new", {Created(file, "0055AED6DCD90281E5")}),
          Message("copy", {Created(file, "0055AED6DCD90281E5")}),
          Message("late", {Created(file, "0055AED6DCD90281")})});
  ASSERT_OK_AND_ASSIGN(DiscoveryResult second, discovery->Discover({}, kLater));
  EXPECT_TRUE(second.files.empty());
  EXPECT_EQ(Calls("Stat"), 0);
  EXPECT_EQ(discovery->held(), 3u);

  // A newer event is looked at: the file as it is now.
  Arrive({Message("newer", {Created(file, "0055AED6DCD90281E6")})});
  ASSERT_OK_AND_ASSIGN(DiscoveryResult third, discovery->Discover({}, kLater));
  ASSERT_EQ(third.files.size(), 1u);
  EXPECT_NE(third.files[0].size, size);
  // All four are done with the file.
  EXPECT_TRUE(discovery->SettleUnits(Fates({file}, UnitFate::kDone)).empty());
  EXPECT_EQ(AsSet(log_->acknowledged), (std::set<std::string>{"new", "copy", "late", "newer"}));
}

TEST_F(NotificationDiscoveryTest, WithoutSequencersEveryEventIsLookedAtAndTheLedgerDecides) {
  auto discovery = Make(Config());
  ASSERT_OK(discovery->Discover({}, kLater));
  const std::string file = Write("a.parquet");
  Arrive({Message("one", {Created(file)})});
  ASSERT_OK_AND_ASSIGN(DiscoveryResult first, discovery->Discover({}, kLater));
  EXPECT_TRUE(discovery->SettleUnits(Fates({file}, UnitFate::kDone)).empty());
  Arrive({Message("two", {Created(file)})});
  ASSERT_OK_AND_ASSIGN(DiscoveryResult second, discovery->Discover({}, kLater));
  ASSERT_EQ(second.files.size(), 1u);
  EXPECT_EQ(second.files[0].mtime_ms, first.files[0].mtime_ms);
  EXPECT_TRUE(discovery->SettleUnits(Fates({file}, UnitFate::kDone)).empty());
  EXPECT_EQ(log_->acknowledged, (std::vector<std::string>{"one", "two"}));
}

TEST_F(NotificationDiscoveryTest, UnitsOfBlockedTablesGoBackToTheQueue) {
  auto discovery = Make(Config());
  ASSERT_OK(discovery->Discover({}, kLater));
  const std::string file = Write("a.parquet");
  Arrive({Message("m", {Created(file)})});
  ASSERT_OK(discovery->Discover({}, kLater));
  // Not recorded (its table was blocked): the notification comes back later.
  EXPECT_TRUE(discovery->SettleUnits(Fates({file}, UnitFate::kUnknown)).empty());
  EXPECT_EQ(log_->released, std::vector<std::string>{"m"});
  EXPECT_TRUE(log_->acknowledged.empty());
  EXPECT_EQ(discovery->held(), 0u);
  EXPECT_TRUE(discovery->AwaitedUnits().empty());
}

TEST_F(NotificationDiscoveryTest, AFileTheBackfillListedTooGoesBackWhenNotRecorded) {
  const std::string file = Write("a.parquet");
  Arrive({Message("m", {Created(file)})});
  auto discovery = Make(Config());
  ASSERT_OK_AND_ASSIGN(DiscoveryResult start, discovery->Discover({}, kLater));  // lists and receives
  EXPECT_EQ(Uris(start), std::vector<std::string>{file});
  EXPECT_EQ(Calls("Stat"), 0);  // the listing said it all
  EXPECT_TRUE(discovery->SettleUnits(Fates({file}, UnitFate::kUnknown)).empty());
  EXPECT_EQ(log_->released, std::vector<std::string>{"m"});
  EXPECT_EQ(discovery->held(), 0u);
}

TEST_F(NotificationDiscoveryTest, ARepeatedDiscoverReturnsWhatIsNotRecordedYet) {
  auto discovery = Make(Config());
  ASSERT_OK(discovery->Discover({}, kLater));
  const std::string file = Write("a.parquet");
  Arrive({Message("m", {Created(file)})});
  ASSERT_OK_AND_ASSIGN(DiscoveryResult first, discovery->Discover({}, kLater));
  ASSERT_OK_AND_ASSIGN(DiscoveryResult repeated, discovery->Discover({}, kLater));
  EXPECT_EQ(Uris(first), Uris(repeated));
}

TEST_F(NotificationDiscoveryTest, AFileThatCannotBeLookedAtGoesBackToTheQueue) {
  auto discovery = Make(Config());
  ASSERT_OK(discovery->Discover({}, kLater));
  const std::string file = Write("a.parquet");
  Arrive({Message("m", {Created(file)})});
  FaultPlan plan;
  plan.fail_at = 0;  // the Stat
  plan.retryable = true;
  io_->Reset(plan);
  ASSERT_OK_AND_ASSIGN(DiscoveryResult result, discovery->Discover({}, kLater));
  EXPECT_TRUE(result.files.empty());
  EXPECT_EQ(log_->released, std::vector<std::string>{"m"});
  ASSERT_EQ(result.warnings.size(), 1u);
  EXPECT_NE(result.warnings[0].find(file), std::string::npos) << result.warnings[0];
}

TEST_F(NotificationDiscoveryTest, UnreadableNotificationsAreCountedAndLeftToTheQueue) {
  auto discovery = Make(Config());
  NotificationBatch batch;
  batch.unreadable = {"SQS message x is not JSON", "SQS message y is not an S3 event notification"};
  log_->batches.push_back(batch);
  ASSERT_OK_AND_ASSIGN(DiscoveryResult result, discovery->Discover({}, kLater));
  ASSERT_EQ(result.warnings.size(), 2u);
  EXPECT_NE(result.warnings[1].find("message y"), std::string::npos);
  EXPECT_NE(result.warnings[1].find("redrive policy (2 unreadable so far)"), std::string::npos)
      << result.warnings[1];
  EXPECT_TRUE(log_->acknowledged.empty());
  EXPECT_TRUE(log_->released.empty());
}

TEST_F(NotificationDiscoveryTest, BackfillAtStartEveryIntervalAndAfterLostEvents) {
  Write("a.parquet");
  NotificationDiscoveryOptions options;
  options.backfill_on_start = false;
  options.backfill_interval_ms = 1000;
  auto discovery = Make(Config(), options);
  ASSERT_OK_AND_ASSIGN(DiscoveryResult start, discovery->Discover({}, 10'000));
  EXPECT_TRUE(start.files.empty());
  EXPECT_EQ(discovery->listings(), 0);
  ASSERT_OK(discovery->Discover({}, 10'999));
  EXPECT_EQ(discovery->listings(), 0);
  ASSERT_OK_AND_ASSIGN(DiscoveryResult due, discovery->Discover({}, kLater));
  EXPECT_EQ(discovery->listings(), 1);
  EXPECT_EQ(due.files.size(), 1u);
  // Events were dropped: a listing at once.
  NotificationBatch lost;
  lost.lost = true;
  log_->batches.push_back(lost);
  ASSERT_OK(discovery->Discover({}, kLater + 1));
  EXPECT_EQ(discovery->listings(), 2);

  // backfill_interval = 0: the start listing only.
  options.backfill_on_start = true;
  options.backfill_interval_ms = 0;
  auto once = Make(Config(), options);
  ASSERT_OK(once->Discover({}, 0));
  ASSERT_OK(once->Discover({}, kLater));
  EXPECT_EQ(once->listings(), 1);
}

TEST_F(NotificationDiscoveryTest, ReceivingPausesWhileTooManyAreHeld) {
  NotificationDiscoveryOptions options;
  options.max_held = 2;
  auto discovery = Make(Config(), options);
  ASSERT_OK(discovery->Discover({}, kLater));
  for (int i = 0; i < 4; ++i) {
    const std::string name = "f" + std::to_string(i) + ".parquet";
    Arrive({Message("m" + std::to_string(i), {Created(Write(name))})});
  }
  const int receives = log_->receives;
  ASSERT_OK_AND_ASSIGN(DiscoveryResult first, discovery->Discover({}, kLater));
  EXPECT_EQ(first.files.size(), 2u);
  EXPECT_EQ(discovery->held(), 2u);
  ASSERT_FALSE(first.warnings.empty());
  EXPECT_NE(first.warnings[0].find("max_messages"), std::string::npos) << first.warnings[0];
  ASSERT_OK_AND_ASSIGN(DiscoveryResult full, discovery->Discover({}, kLater));
  EXPECT_EQ(log_->receives, receives + 2);  // none while full
  EXPECT_TRUE(full.warnings.empty()) << "said once";
  EXPECT_TRUE(discovery->SettleUnits(Fates(Uris(first), UnitFate::kDone)).empty());
  ASSERT_OK_AND_ASSIGN(DiscoveryResult next, discovery->Discover({}, kLater));
  EXPECT_EQ(next.files.size(), 2u);
}

TEST_F(NotificationDiscoveryTest, AFailedAcknowledgementIsTriedAgain) {
  auto discovery = Make(Config());
  ASSERT_OK(discovery->Discover({}, kLater));
  const std::string file = Write("a.parquet");
  Arrive({Message("m", {Created(file)})});
  ASSERT_OK(discovery->Discover({}, kLater));
  log_->fail_next_acknowledge = Status::IOError("DeleteMessageBatch: HTTP 500", true);
  std::vector<std::string> warnings = discovery->SettleUnits(Fates({file}, UnitFate::kDone));
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("HTTP 500"), std::string::npos);
  EXPECT_TRUE(log_->acknowledged.empty());
  ASSERT_OK(discovery->Discover({}, kLater));
  EXPECT_EQ(log_->acknowledged, std::vector<std::string>{"m"});
}

// ---------------------------------------------------------------------------
// CDA: the manifest is the commit signal.

class CdaNotificationTest : public NotificationDiscoveryTest {
 protected:
  // Folder names are epoch milliseconds; real ones have 13 digits (listings start after the watermark).
  static constexpr int64_t kFirst = 1'700'000'002'000;
  static constexpr int64_t kSecond = 1'700'000'003'000;
  static std::string Folder(int64_t ms) { return std::to_string(ms); }

  void Manifest(int64_t claim_ms) {
    Write("manifest.json",
          R"({"claim": {"lastSuccessfulWriteTimestamp": ")" + std::to_string(claim_ms) +
              R"(", "schemaHistory": {"fp1": "1000"}}, "policy": {"lastSuccessfulWriteTimestamp": ")" +
              std::to_string(kFirst) + R"(", "schemaHistory": {"fp1": "1000"}}})");
  }

  // Discovers as the pipeline does: with the watermarks it stored after the previous call.
  Result<DiscoveryResult> Poll(NotificationDiscovery& discovery, int64_t now_ms) {
    FLOE_ASSIGN_OR_RETURN(DiscoveryResult result, discovery.Discover(watermarks_, now_ms));
    for (const TableWatermark& watermark : result.new_watermarks) watermarks_[watermark.table] = watermark;
    return result;
  }

  std::map<std::string, TableWatermark> watermarks_;
};

TEST_F(CdaNotificationTest, PartFilesWaitForTheManifestToCommitTheirFolder) {
  SourceConfig config = Config(DiscoveryKind::kCda);
  config.exclude = {"policy"};
  Manifest(kFirst);
  Write("claim/fp1/" + Folder(kFirst) + "/part-0.parquet");
  NotificationDiscoveryOptions options;
  options.recheck_interval_ms = 1'000;
  auto discovery = Make(config, options);
  ASSERT_OK_AND_ASSIGN(DiscoveryResult start, Poll(*discovery, 0));
  EXPECT_EQ(start.files.size(), 1u);
  const std::map<std::string, TableWatermark> before = watermarks_;

  // A folder being written: its part files are notified before the manifest commits it.
  const std::string waiting = Write("claim/fp1/" + Folder(kSecond) + "/part-0.parquet");
  Arrive({Message("part", {Created(waiting)}),
          Message("excluded", {Created(Write("policy/fp1/" + Folder(kSecond) + "/part-0.parquet"))}),
          Message("metrics", {Created(Write("claim/fp1/" + Folder(kSecond) + "/.cda/batch-metrics.json"))})});
  io_->Reset({});
  ASSERT_OK_AND_ASSIGN(DiscoveryResult early, Poll(*discovery, 100));
  EXPECT_TRUE(early.files.empty());
  EXPECT_EQ(Calls("List") + Calls("OpenRead"), 0);  // nothing to check yet
  EXPECT_EQ(AsSet(log_->acknowledged), (std::set<std::string>{"excluded", "metrics"}));
  EXPECT_EQ(discovery->AwaitedUnits(), std::vector<std::string>{waiting});

  // The manifest moves: its notification runs the check, which lists claim only.
  Manifest(kSecond);
  Arrive({Message("manifest", {Created(Path("manifest.json"))})});
  io_->Reset({});
  ASSERT_OK_AND_ASSIGN(DiscoveryResult committed, Poll(*discovery, 200));
  EXPECT_EQ(Uris(committed), std::vector<std::string>{waiting});
  EXPECT_EQ(Calls("OpenRead"), 1);  // manifest.json
  EXPECT_EQ(Calls("List"), 1);      // claim/fp1 after its watermark; excluded policy is not listed
  DiscoveryResult listed = Listed(config, before);
  ASSERT_EQ(listed.files.size(), 1u);
  EXPECT_EQ(committed.files[0].order_key, listed.files[0].order_key);
  EXPECT_EQ(committed.files[0].mtime_ms, listed.files[0].mtime_ms);
  // Both wait for the file's commit.
  EXPECT_TRUE(discovery->SettleUnits(Fates({waiting}, UnitFate::kPending)).empty());
  EXPECT_EQ(discovery->held(), 2u);
  EXPECT_TRUE(discovery->SettleUnits(Fates({waiting}, UnitFate::kDone)).empty());
  EXPECT_EQ(AsSet(log_->acknowledged), (std::set<std::string>{"excluded", "metrics", "part", "manifest"}));
  // The next poll reads nothing: the pipeline stored what the check returned.
  io_->Reset({});
  ASSERT_OK_AND_ASSIGN(DiscoveryResult idle, Poll(*discovery, 300));
  EXPECT_TRUE(idle.files.empty());
  EXPECT_EQ(io_->calls(), 0);
}

TEST_F(CdaNotificationTest, WaitingFilesLookAtTheManifestAgainWhenItsNotificationIsLost) {
  SourceConfig config = Config(DiscoveryKind::kCda);
  Manifest(kFirst);
  NotificationDiscoveryOptions options;
  options.recheck_interval_ms = 1'000;
  auto discovery = Make(config, options);
  ASSERT_OK(Poll(*discovery, 0));
  const std::string waiting = Write("claim/fp1/" + Folder(kSecond) + "/part-0.parquet");
  Arrive({Message("part", {Created(waiting)})});
  ASSERT_OK(Poll(*discovery, 100));
  Manifest(kSecond);  // no notification for it
  ASSERT_OK_AND_ASSIGN(DiscoveryResult soon, Poll(*discovery, 500));
  EXPECT_TRUE(soon.files.empty());
  ASSERT_OK_AND_ASSIGN(DiscoveryResult later, Poll(*discovery, 1'200));
  EXPECT_EQ(Uris(later), std::vector<std::string>{waiting});
}

TEST_F(CdaNotificationTest, APartFileTheCommittedFolderDoesNotTakeIsDone) {
  SourceConfig config = Config(DiscoveryKind::kCda);
  Manifest(kSecond);
  auto discovery = Make(config);
  ASSERT_OK(Poll(*discovery, 0));
  // A fingerprint folder the manifest does not know: the check ignores its files.
  const std::string stray = Write("claim/fp9/" + Folder(kSecond) + "/part-0.parquet");
  Arrive({Message("stray", {Created(stray)}), Message("manifest", {Created(Path("manifest.json"))})});
  ASSERT_OK_AND_ASSIGN(DiscoveryResult result, Poll(*discovery, 100));
  EXPECT_TRUE(result.files.empty());
  EXPECT_TRUE(discovery->SettleUnits(Fates({stray}, UnitFate::kUnknown)).empty());
  EXPECT_EQ(AsSet(log_->acknowledged), (std::set<std::string>{"manifest", "stray"}));
}

// The CDA part-file path parser the discovery shares with the listing.
TEST(CdaPartPathTest, OnlyPartFilesOfTimestampFolders) {
  auto part = ParseCdaPartPath("claim/fp1/1700000000000/part-00000.snappy.parquet");
  ASSERT_TRUE(part.has_value());
  EXPECT_EQ(part->table, "claim");
  EXPECT_EQ(part->fingerprint, "fp1");
  EXPECT_EQ(part->folder_ms, 1700000000000);
  for (const char* other : {"manifest.json", "claim/fp1/17/.cda/batch-metrics.json", "claim/fp1/x/a.parquet",
                            "claim/fp1/17/_a.parquet", "claim/fp1/a.parquet", "claim/fp1/17/a.csv",
                            "claim/fp1/17/sub/a.parquet", "claim//17/a.parquet"}) {
    EXPECT_FALSE(ParseCdaPartPath(other).has_value()) << other;
  }
}

}  // namespace
}  // namespace floe::ingest
