// InotifyNotifications on a real directory: a file counts when it is closed
// after writing or moved in; new folders are watched as they appear (their
// files reported as found); a folder moved away is no longer watched; the
// landing zone appearing late is a "lost" signal (list it); a stop request
// ends a wait; and through NotificationDiscovery a file written in a new
// folder lands exactly as the listing would take it.
#include "ingest/discovery/inotify_notifications.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include "ingest/discovery/notification_discovery.h"
#include "test_util.h"

namespace floe::ingest {
namespace {

namespace fs = std::filesystem;

class InotifyTest : public ::testing::Test {
 protected:
  fs::path root() const { return dir_.path() / "landing"; }
  std::string Write(const std::string& relative, const std::string& content = "PAR1") {
    fs::path path = root() / relative;
    fs::create_directories(path.parent_path());
    std::ofstream(path) << content;
    return path.string();
  }

  // Paths and kinds of what arrives within `wait_ms` (several receives).
  static std::set<std::pair<std::string, FileEvent::Kind>> Events(InotifyNotifications& source,
                                                                  bool* lost = nullptr,
                                                                  int64_t wait_ms = 300) {
    std::set<std::pair<std::string, FileEvent::Kind>> events;
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(wait_ms);
    while (std::chrono::steady_clock::now() < until) {
      auto batch = source.Receive(50);
      EXPECT_TRUE(batch.ok()) << batch.status().ToString();
      if (!batch.ok()) break;
      if (lost != nullptr && batch->lost) *lost = true;
      for (const Notification& notification : batch->notifications) {
        EXPECT_TRUE(notification.id.empty());
        for (const FileEvent& event : notification.events) events.insert({event.path, event.kind});
      }
    }
    return events;
  }

  testing::TempDir dir_;
};

using Kind = FileEvent::Kind;

TEST_F(InotifyTest, AFileCountsWhenClosedAfterWritingOrMovedIn) {
  fs::create_directories(root() / "sub");
  ASSERT_OK_AND_ASSIGN(auto source, InotifyNotifications::Open(root().string()));
  EXPECT_EQ(source->watches(), 2u);
  // Open for writing: nothing yet.
  const std::string growing = (root() / "sub" / "growing.parquet").string();
  const int fd = ::open(growing.c_str(), O_WRONLY | O_CREAT, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::write(fd, "PAR1", 4), 4);
  EXPECT_TRUE(Events(*source).empty());
  ::close(fd);
  const std::string staged = (dir_.path() / "staged.parquet").string();
  std::ofstream(staged) << "PAR1";
  const std::string moved = (root() / "moved.parquet").string();
  fs::rename(staged, moved);
  const std::string written = Write("sub/written.parquet");
  EXPECT_EQ(Events(*source),
            (std::set<std::pair<std::string, Kind>>{
                {growing, Kind::kComplete}, {moved, Kind::kComplete}, {written, Kind::kComplete}}));
}

TEST_F(InotifyTest, NewFoldersAreWatchedAndTheirFilesFound) {
  fs::create_directories(root());
  ASSERT_OK_AND_ASSIGN(auto source, InotifyNotifications::Open(root().string()));
  // A folder tree moved in with files already in it.
  const fs::path outside = dir_.path() / "batch";
  fs::create_directories(outside / "day=1");
  std::ofstream(outside / "day=1" / "a.parquet") << "PAR1";
  fs::rename(outside, root() / "batch");
  const std::string found = (root() / "batch" / "day=1" / "a.parquet").string();
  EXPECT_EQ(Events(*source), (std::set<std::pair<std::string, Kind>>{{found, Kind::kFound}}));
  EXPECT_EQ(source->watches(), 3u);
  // Written later in a folder created later.
  fs::create_directories(root() / "batch" / "day=2" / "x");
  Events(*source);  // the new folders get their watches
  const std::string later = Write("batch/day=2/x/b.parquet");
  EXPECT_EQ(Events(*source), (std::set<std::pair<std::string, Kind>>{{later, Kind::kComplete}}));
  EXPECT_EQ(source->watches(), 5u);
  // Moved away: no longer watched, and nothing written there is reported.
  fs::rename(root() / "batch", dir_.path() / "gone");
  Events(*source);
  EXPECT_EQ(source->watches(), 1u);
  std::ofstream(dir_.path() / "gone" / "day=1" / "c.parquet") << "PAR1";
  EXPECT_TRUE(Events(*source).empty());
}

TEST_F(InotifyTest, ALandingZoneThatAppearsLateIsListed) {
  ASSERT_OK_AND_ASSIGN(auto source, InotifyNotifications::Open(root().string()));
  EXPECT_EQ(source->watches(), 0u);
  bool lost = false;
  EXPECT_TRUE(Events(*source, &lost).empty());
  EXPECT_FALSE(lost);
  fs::create_directories(root());
  EXPECT_TRUE(Events(*source, &lost).empty());
  EXPECT_TRUE(lost);  // files may have landed before the watch: a listing finds them
  EXPECT_EQ(source->watches(), 1u);
  // Removed: lost again, and watched again once it is back.
  fs::remove_all(root());
  lost = false;
  Events(*source, &lost);
  EXPECT_TRUE(lost);
  EXPECT_EQ(source->watches(), 0u);
}

TEST_F(InotifyTest, AStopRequestEndsAWait) {
  fs::create_directories(root());
  ASSERT_OK_AND_ASSIGN(auto source, InotifyNotifications::Open(root().string()));
  std::atomic<bool> stop{false};
  source->SetStopFlag(&stop);
  std::thread stopper([&stop] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    stop = true;
  });
  const auto started = std::chrono::steady_clock::now();
  ASSERT_OK(source->Receive(10'000));
  stopper.join();
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(2));
}

TEST_F(InotifyTest, ThroughTheDiscoveryANotifiedFileIsTheListedUnit) {
  fs::create_directories(root() / "region=eu");  // watched from the start: the close is the one event
  SourceConfig config;
  config.discovery = DiscoveryKind::kPrefix;
  config.uri = root().string();
  config.notifications.kind = NotificationKind::kInotify;
  auto is_parquet = [](std::string_view path) { return path.ends_with(".parquet"); };
  ASSERT_OK_AND_ASSIGN(auto listing, MakeDiscovery(config, MakeLocalFileIO(), is_parquet));
  ASSERT_OK_AND_ASSIGN(auto source, InotifyNotifications::Open(root().string()));
  ASSERT_OK_AND_ASSIGN(auto discovery, NotificationDiscovery::Make(config, std::move(listing),
                                                                   MakeLocalFileIO(), std::move(source), {}));
  const int64_t now = int64_t{1} << 50;
  ASSERT_OK(discovery->Discover({}, now));
  const std::string file = Write("region=eu/part-0.parquet", "12345");
  std::atomic<bool> stop{false};
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (!discovery->WaitForNotifications(until, stop) && std::chrono::steady_clock::now() < until) {
  }
  // A just-written file: notified files do not wait out [source] settle.
  ASSERT_OK_AND_ASSIGN(DiscoveryResult result, discovery->Discover({}, 0));
  ASSERT_EQ(result.files.size(), 1u);
  ASSERT_OK_AND_ASSIGN(auto plain, MakeDiscovery(config, MakeLocalFileIO(), is_parquet));
  ASSERT_OK_AND_ASSIGN(DiscoveryResult listed, plain->Discover({}, now));
  ASSERT_EQ(listed.files.size(), 1u);
  EXPECT_EQ(result.files[0].uri, listed.files[0].uri);
  EXPECT_EQ(result.files[0].uri, file);
  EXPECT_EQ(result.files[0].size, listed.files[0].size);
  EXPECT_EQ(result.files[0].mtime_ms, listed.files[0].mtime_ms);
  EXPECT_EQ(result.files[0].partition_values, listed.files[0].partition_values);
  EXPECT_EQ(discovery->listings(), 1);
}

}  // namespace
}  // namespace floe::ingest
