// Local-filesystem FileIO: pread for ranged reads; writes go to a hidden
// temporary file beside the target and are renamed into place on Close, so a
// crash never leaves a partial file at the final path.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <random>

#include "io/file_io.h"

namespace floe {
namespace {

namespace fs = std::filesystem;

std::string ErrnoMessage(const std::string& what, const std::string& path) {
  return what + " " + path + ": " + std::strerror(errno);
}

class LocalInputFile final : public InputFile {
 public:
  LocalInputFile(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  ~LocalInputFile() override { ::close(fd_); }
  const std::string& path() const override { return path_; }

  Result<int64_t> Size() override {
    struct stat st;
    if (::fstat(fd_, &st) != 0) return Status::IOError(ErrnoMessage("cannot stat", path_));
    return static_cast<int64_t>(st.st_size);
  }

  Status ReadAt(int64_t offset, int64_t length, uint8_t* out) override {
    if (offset < 0 || length < 0) return Status::InvalidArgument(path_ + ": negative read range");
    int64_t done = 0;
    while (done < length) {
      ssize_t n = ::pread(fd_, out + done, static_cast<size_t>(length - done), offset + done);
      if (n < 0) {
        if (errno == EINTR) continue;
        return Status::IOError(ErrnoMessage("cannot read", path_));
      }
      if (n == 0) {
        return Status::IOError(path_ + ": read of " + std::to_string(length) + " bytes at offset " +
                               std::to_string(offset) + " goes past the end of the file");
      }
      done += n;
    }
    return Status::OK();
  }

 private:
  std::string path_;
  int fd_;
};

class LocalOutputFile final : public OutputFile {
 public:
  LocalOutputFile(std::string path, std::string temp_path, int fd, bool if_not_exists)
      : path_(std::move(path)), temp_path_(std::move(temp_path)), fd_(fd), if_not_exists_(if_not_exists) {}
  ~LocalOutputFile() override {
    if (fd_ >= 0) Abort();
  }
  const std::string& path() const override { return path_; }
  int64_t Position() const override { return position_; }

  Status Write(std::span<const uint8_t> bytes) override {
    if (fd_ < 0) return Status::Internal(path_ + ": write after close");
    size_t done = 0;
    while (done < bytes.size()) {
      ssize_t n = ::write(fd_, bytes.data() + done, bytes.size() - done);
      if (n < 0) {
        if (errno == EINTR) continue;
        return Status::IOError(ErrnoMessage("cannot write", path_));
      }
      done += static_cast<size_t>(n);
    }
    position_ += static_cast<int64_t>(bytes.size());
    return Status::OK();
  }

  Result<int64_t> Close() override {
    if (fd_ < 0) return Status::Internal(path_ + ": closed twice");
    if (::fsync(fd_) != 0) {
      Status st = Status::IOError(ErrnoMessage("cannot sync", path_));
      Abort();
      return st;
    }
    ::close(fd_);
    fd_ = -1;
    if (if_not_exists_) {
      // link() fails with EEXIST if the target exists: an atomic create-if-absent.
      if (::link(temp_path_.c_str(), path_.c_str()) != 0) {
        int err = errno;
        ::unlink(temp_path_.c_str());
        if (err == EEXIST) return Status::AlreadyExists(path_ + " already exists");
        errno = err;
        return Status::IOError(ErrnoMessage("cannot publish", path_));
      }
      ::unlink(temp_path_.c_str());
    } else if (::rename(temp_path_.c_str(), path_.c_str()) != 0) {
      Status st = Status::IOError(ErrnoMessage("cannot publish", path_));
      ::unlink(temp_path_.c_str());
      return st;
    }
    SyncParentDirectory();
    return position_;
  }

  void Abort() override {
    if (fd_ >= 0) {
      ::close(fd_);
      fd_ = -1;
    }
    ::unlink(temp_path_.c_str());
  }

 private:
  void SyncParentDirectory() {
    std::string dir = fs::path(path_).parent_path().string();
    if (dir.empty()) dir = ".";
    int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
    if (dfd >= 0) {
      ::fsync(dfd);
      ::close(dfd);
    }
  }

  std::string path_;
  std::string temp_path_;
  int fd_;
  bool if_not_exists_;
  int64_t position_ = 0;
};

class LocalFileIO final : public FileIO {
 public:
  Result<std::unique_ptr<InputFile>> OpenRead(const std::string& path_or_uri) override {
    std::string path = LocalPathOf(path_or_uri);
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      if (errno == ENOENT) return Status::NotFound(path + ": no such file");
      return Status::IOError(ErrnoMessage("cannot open", path));
    }
    struct stat st;
    if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
      ::close(fd);
      return Status::InvalidArgument(path + " is a directory, not a file");
    }
    return std::unique_ptr<InputFile>(new LocalInputFile(path, fd));
  }

  Result<std::unique_ptr<OutputFile>> Create(const std::string& path_or_uri, CreateOptions options) override {
    std::string path = LocalPathOf(path_or_uri);
    fs::path target(path);
    std::error_code ec;
    if (target.has_parent_path()) {
      fs::create_directories(target.parent_path(), ec);
      if (ec)
        return Status::IOError("cannot create directory " + target.parent_path().string() + ": " +
                               ec.message());
    }
    if (options.if_not_exists && fs::exists(target, ec)) {
      return Status::AlreadyExists(path + " already exists");
    }
    static std::atomic<uint64_t> counter{0};
    std::string temp =
        (target.parent_path() / ("." + target.filename().string() + ".tmp-" + std::to_string(::getpid()) +
                                 "-" + std::to_string(counter.fetch_add(1))))
            .string();
    int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return Status::IOError(ErrnoMessage("cannot create", temp));
    return std::unique_ptr<OutputFile>(new LocalOutputFile(path, temp, fd, options.if_not_exists));
  }

  Result<FileInfo> Stat(const std::string& path_or_uri) override {
    std::string path = LocalPathOf(path_or_uri);
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) {
      if (errno == ENOENT) return Status::NotFound(path + ": no such file");
      return Status::IOError(ErrnoMessage("cannot stat", path));
    }
    FileInfo info;
    info.path = path;
    info.size = static_cast<int64_t>(st.st_size);
    info.mtime_ms = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000 + st.st_mtim.tv_nsec / 1000000;
    return info;
  }

  Result<bool> Exists(const std::string& path_or_uri) override {
    std::error_code ec;
    bool exists = fs::exists(LocalPathOf(path_or_uri), ec);
    if (ec) return Status::IOError("cannot check " + path_or_uri + ": " + ec.message());
    return exists;
  }

  Result<std::vector<FileInfo>> List(const std::string& prefix_or_uri) override {
    std::string prefix = LocalPathOf(prefix_or_uri);
    std::vector<FileInfo> out;
    std::error_code ec;
    if (!fs::exists(prefix, ec)) return out;
    // Symbolic links to files are listed with their resolved target, so a
    // caller can refuse one that leaves the prefix (links to directories are
    // not followed: the iterator's default).
    std::error_code canonical_ec;
    const std::string root = fs::weakly_canonical(prefix, canonical_ec).string();
    for (auto it = fs::recursive_directory_iterator(prefix, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (!it->is_regular_file(ec)) continue;
      FileInfo info;
      info.path = it->path().string();
      std::error_code link_ec;
      if (it->is_symlink(link_ec)) {
        info.link_target = fs::weakly_canonical(it->path(), link_ec).string();
        const bool inside = !canonical_ec && info.link_target.size() > root.size() &&
                            info.link_target.compare(0, root.size(), root) == 0 &&
                            (root.back() == '/' || info.link_target[root.size()] == '/');
        info.link_leaves_prefix = !inside;
      }
      info.size = static_cast<int64_t>(it->file_size(ec));
      auto ftime = it->last_write_time(ec);
      info.mtime_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::file_clock::to_sys(ftime).time_since_epoch())
                          .count();
      out.push_back(std::move(info));
    }
    if (ec) return Status::IOError("cannot list " + prefix + ": " + ec.message());
    std::sort(out.begin(), out.end(), [](const FileInfo& a, const FileInfo& b) { return a.path < b.path; });
    return out;
  }

  Status Delete(const std::string& path_or_uri) override {
    std::string path = LocalPathOf(path_or_uri);
    if (::unlink(path.c_str()) != 0 && errno != ENOENT) {
      return Status::IOError(ErrnoMessage("cannot delete", path));
    }
    return Status::OK();
  }
};

}  // namespace

std::string LocalPathOf(const std::string& path_or_uri) {
  constexpr std::string_view kScheme = "file://";
  if (path_or_uri.rfind(kScheme, 0) == 0) return path_or_uri.substr(kScheme.size());
  return path_or_uri;
}

std::shared_ptr<FileIO> MakeLocalFileIO() {
  return std::make_shared<LocalFileIO>();
}

}  // namespace floe
