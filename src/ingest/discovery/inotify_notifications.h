// InotifyNotifications: Linux inotify on a local landing zone as a
// NotificationSource ([source] notifications = "inotify").
//
// Contract (see NotificationSource):
// - Every directory under the root is watched (not through symbolic links,
//   as listings do not follow them); a directory created or moved in is
//   watched as it appears, and the files already in it are reported as
//   kFound (they may still be written: they settle like listed files).
//   A directory moved away or deleted is no longer watched.
// - A file counts when it is closed after being written (IN_CLOSE_WRITE) or
//   moved in (IN_MOVED_TO): kComplete. Writers that close a file before it
//   is whole must write elsewhere and move it in. Symbolic links are left
//   to listings, which apply [source] follow_links_outside_uri.
// - `lost` is set when the kernel dropped events (IN_Q_OVERFLOW), when a
//   watch could not be added (fs.inotify.max_user_watches; also a warning
//   naming the limit), when the root appears after being absent or is
//   removed: a listing finds what was missed.
// - Notifications have no ids: nothing to acknowledge.
// - Receive waits in steps of at most 100 ms and returns early once the
//   stop flag is set.
// Not thread-safe (one caller). Linux only: elsewhere Open is NotSupported.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <string>

#include "ingest/discovery/notification_source.h"

namespace floe::ingest {

class InotifyNotifications final : public NotificationSource {
 public:
  // `root`: the local directory (it may not exist yet; it is watched once it does).
  static Result<std::unique_ptr<InotifyNotifications>> Open(std::string root);
  ~InotifyNotifications() override;

  Result<NotificationBatch> Receive(int64_t wait_ms) override;
  void SetStopFlag(const std::atomic<bool>* stop) override { stop_ = stop; }
  int64_t max_wait_ms() const override { return 1000; }
  std::string name() const override { return "inotify on " + root_; }

  // Directories watched (tests).
  size_t watches() const { return path_of_.size(); }

 private:
  InotifyNotifications(std::string root, int fd) : root_(std::move(root)), fd_(fd) {}
  // Watches `dir` and every directory below it; the files in them go to
  // `found` as kFound events when `report_files`.
  void WatchTree(const std::string& dir, bool report_files, NotificationBatch& batch);
  void Unwatch(int wd);
  // Drops the watches of `dir` and of everything below it.
  void UnwatchTree(const std::string& dir);
  void ReadEvents(NotificationBatch& batch);

  const std::string root_;
  const int fd_;
  const std::atomic<bool>* stop_ = nullptr;
  std::map<int, std::string> path_of_;  // watch descriptor -> directory
  bool watching_root_ = false;
};

}  // namespace floe::ingest
