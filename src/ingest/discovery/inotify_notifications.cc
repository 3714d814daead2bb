#include "ingest/discovery/inotify_notifications.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <utility>
#include <vector>

#ifdef __linux__
#include <poll.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

namespace floe::ingest {

#ifdef __linux__

namespace {

namespace fs = std::filesystem;

// Files closed after writing or moved in; directories appearing, leaving or
// disappearing (IN_CREATE also reports files: ignored).
constexpr uint32_t kWatchMask =
    IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR;

Notification OneFile(FileEvent::Kind kind, std::string path) {
  Notification notification;
  FileEvent event;
  event.kind = kind;
  event.path = std::move(path);
  notification.events.push_back(std::move(event));
  return notification;
}

bool IsSymlink(const std::string& path) {
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode);
}

}  // namespace

Result<std::unique_ptr<InotifyNotifications>> InotifyNotifications::Open(std::string root) {
  while (root.size() > 1 && root.back() == '/') root.pop_back();
  const int fd = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (fd < 0) {
    const int error = errno;
    return Status::IOError("inotify on " + root + ": cannot start (" + std::strerror(error) + ")" +
                           (error == EMFILE ? "; raise fs.inotify.max_user_instances" : ""));
  }
  std::unique_ptr<InotifyNotifications> source(new InotifyNotifications(std::move(root), fd));
  // Set up at once, so that files written from now on are seen; what was
  // there before is the start listing's (backfill_on_start).
  std::error_code ec;
  if (fs::is_directory(source->root_, ec)) {
    NotificationBatch ignored;
    source->WatchTree(source->root_, /*report_files=*/false, ignored);
    source->watching_root_ = !source->path_of_.empty();
  }
  return source;
}

InotifyNotifications::~InotifyNotifications() {
  ::close(fd_);
}

void InotifyNotifications::WatchTree(const std::string& dir, bool report_files, NotificationBatch& batch) {
  std::vector<std::string> pending = {dir};
  while (!pending.empty()) {
    const std::string next = std::move(pending.back());
    pending.pop_back();
    // The root may be a link to the landing zone (a listing follows it too); nothing below it is followed.
    const uint32_t mask = next == root_ ? kWatchMask : kWatchMask | IN_DONT_FOLLOW;
    const int wd = ::inotify_add_watch(fd_, next.c_str(), mask);
    if (wd < 0) {
      const int error = errno;
      if (error == ENOENT || error == ENOTDIR) continue;  // gone again (or replaced by a file)
      batch.lost = true;
      batch.warnings.push_back(name() + ": cannot watch " + next + " (" + std::strerror(error) + ")" +
                               (error == ENOSPC ? "; raise fs.inotify.max_user_watches (sysctl)" : "") +
                               "; its files are found by listings");
      continue;
    }
    path_of_[wd] = next;
    // Listed after the watch exists: a file closed from now on is an event,
    // one closed before is here.
    std::error_code ec;
    for (fs::directory_iterator it(next, ec), end; !ec && it != end; it.increment(ec)) {
      const std::string child = it->path().string();
      std::error_code type_ec;
      if (it->is_symlink(type_ec)) continue;
      if (it->is_directory(type_ec)) {
        pending.push_back(child);
      } else if (report_files && it->is_regular_file(type_ec)) {
        batch.notifications.push_back(OneFile(FileEvent::Kind::kFound, child));
      }
    }
  }
}

void InotifyNotifications::Unwatch(int wd) {
  ::inotify_rm_watch(fd_, wd);
  path_of_.erase(wd);
}

void InotifyNotifications::UnwatchTree(const std::string& dir) {
  std::vector<int> below;
  for (const auto& [wd, path] : path_of_) {
    if (path == dir ||
        (path.size() > dir.size() && path.compare(0, dir.size(), dir) == 0 && path[dir.size()] == '/')) {
      below.push_back(wd);
    }
  }
  for (int wd : below) Unwatch(wd);
}

void InotifyNotifications::ReadEvents(NotificationBatch& batch) {
  alignas(inotify_event) char buffer[64 * 1024];
  for (;;) {
    const ssize_t n = ::read(fd_, buffer, sizeof(buffer));
    if (n <= 0) return;  // EAGAIN: nothing more now
    for (ssize_t at = 0; at + static_cast<ssize_t>(sizeof(inotify_event)) <= n;) {
      const auto* event = reinterpret_cast<const inotify_event*>(buffer + at);
      at += static_cast<ssize_t>(sizeof(inotify_event) + event->len);
      if (event->mask & IN_Q_OVERFLOW) {
        batch.lost = true;
        batch.warnings.push_back(name() +
                                 ": the kernel's event queue overflowed (fs.inotify.max_queued_events); "
                                 "listing the landing zone instead");
        continue;
      }
      auto dir = path_of_.find(event->wd);
      if (dir == path_of_.end()) continue;
      if (event->mask & IN_IGNORED) {
        const bool root = dir->second == root_;
        path_of_.erase(dir);
        if (root) {
          watching_root_ = false;
          batch.lost = true;
        }
        continue;
      }
      if (event->mask & (IN_DELETE_SELF | IN_MOVE_SELF)) {
        if (dir->second == root_) {
          // The landing zone itself went away: start over once it is back.
          std::vector<int> all;
          for (const auto& [wd, path] : path_of_) all.push_back(wd);
          for (int wd : all) Unwatch(wd);
          watching_root_ = false;
          batch.lost = true;
        }
        continue;  // a directory below: its parent's IN_MOVED_FROM, or IN_IGNORED, says what to do
      }
      if (event->len == 0) continue;
      const std::string path = dir->second + "/" + event->name;
      if (event->mask & IN_ISDIR) {
        if (event->mask & (IN_CREATE | IN_MOVED_TO)) {
          WatchTree(path, /*report_files=*/true, batch);
        } else if (event->mask & IN_MOVED_FROM) {
          UnwatchTree(path);
        }
        continue;
      }
      if ((event->mask & (IN_CLOSE_WRITE | IN_MOVED_TO)) && !IsSymlink(path)) {
        batch.notifications.push_back(OneFile(FileEvent::Kind::kComplete, path));
      }
    }
  }
}

Result<NotificationBatch> InotifyNotifications::Receive(int64_t wait_ms) {
  NotificationBatch batch;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(wait_ms);
  for (bool first = true;; first = false) {
    std::error_code ec;
    if (!watching_root_ && fs::is_directory(root_, ec)) {
      WatchTree(root_, /*report_files=*/false, batch);
      watching_root_ = !path_of_.empty();
      batch.lost = true;  // whatever landed while it was not watched
    }
    ReadEvents(batch);
    if (!batch.empty() || (stop_ != nullptr && stop_->load())) break;
    const auto remaining =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now())
            .count();
    if (remaining <= 0 && !first) break;
    // Waits in steps, so a stop request or a root that appears is seen soon.
    pollfd ready{fd_, POLLIN, 0};
    const int polled = ::poll(&ready, 1, static_cast<int>(std::clamp<int64_t>(remaining, 0, 100)));
    if (polled < 0 && errno != EINTR) {
      return Status::IOError(name() + ": poll failed (" + std::strerror(errno) + ")", true);
    }
  }
  return batch;
}

#else  // not Linux

Result<std::unique_ptr<InotifyNotifications>> InotifyNotifications::Open(std::string root) {
  return Status::NotSupported("inotify on " + root + ": inotify needs Linux; use listings here");
}
InotifyNotifications::~InotifyNotifications() = default;
void InotifyNotifications::WatchTree(const std::string&, bool, NotificationBatch&) {}
void InotifyNotifications::Unwatch(int) {}
void InotifyNotifications::UnwatchTree(const std::string&) {}
void InotifyNotifications::ReadEvents(NotificationBatch&) {}
Result<NotificationBatch> InotifyNotifications::Receive(int64_t) {
  return Status::NotSupported("inotify needs Linux");
}

#endif

}  // namespace floe::ingest
