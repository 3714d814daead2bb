// The ledger's SQLite database: <state dir>/ledger.db (WAL, synchronous=FULL),
// a writer's exclusive flock on <state dir>/ledger.lock.
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "ingest/state/ledger_database.h"

namespace floe::ingest {
namespace {

namespace fs = std::filesystem;

constexpr int kBusyTimeoutMs = 30'000;

class SqliteLedgerDatabase final : public LedgerDatabase {
 public:
  SqliteLedgerDatabase(std::string state_dir, std::string path)
      : state_dir_(std::move(state_dir)), path_(std::move(path)) {}
  ~SqliteLedgerDatabase() override {
    db_.reset();
    if (lock_fd_ >= 0) ::close(lock_fd_);  // releases the flock
  }

  Status Open(bool write) {
    SqliteOpenOptions options;
    options.busy_timeout_ms = kBusyTimeoutMs;
    if (write) {
      FLOE_RETURN_IF_ERROR(TakeLock());
      options.create_if_missing = true;
    } else {
      options.read_only = true;
    }
    FLOE_ASSIGN_OR_RETURN(db_, SqliteDatabase::Open(path_, options));
    if (write) {
      FLOE_RETURN_IF_ERROR(db_->SetJournalMode("wal"));
      FLOE_RETURN_IF_ERROR(db_->Exec("PRAGMA synchronous=FULL"));
    }
    return Status::OK();
  }

  Result<LedgerStatement> Prepare(const std::string& sql) override {
    FLOE_ASSIGN_OR_RETURN(SqliteStatement statement, db_->Prepare(sql));
    return LedgerStatement(db_.get(), std::move(statement));
  }

  Status Exec(const std::string& sql) override { return db_->Exec(sql); }

  Status Transaction(const std::function<Status()>& body, bool write) override {
    return db_->Transaction(body, write ? SqliteTransaction::kImmediate : SqliteTransaction::kDeferred);
  }

  Result<bool> HasTable(const std::string& name) override {
    FLOE_ASSIGN_OR_RETURN(SqliteStatement query,
                          db_->Prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1"));
    query.Bind(1, name);
    return query.Step();
  }

  std::string Ddl(const std::string& sqlite_ddl) const override { return sqlite_ddl; }

  const std::string& name() const override { return path_; }

 private:
  Status TakeLock() {
    std::string lock_path = (fs::path(state_dir_) / "ledger.lock").string();
    lock_fd_ = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (lock_fd_ < 0) return Status::IOError(lock_path + ": cannot open: " + std::strerror(errno));
    if (::flock(lock_fd_, LOCK_EX | LOCK_NB) != 0) {
      int error = errno;
      if (error == EWOULDBLOCK) {
        char holder[32] = {};
        ssize_t n = ::pread(lock_fd_, holder, sizeof(holder) - 1, 0);
        std::string pid = n > 0 ? std::string(holder, static_cast<size_t>(n)) : "";
        while (!pid.empty() && (pid.back() == '\n' || pid.back() == ' ')) pid.pop_back();
        return Status::InvalidArgument("another floe process is using state dir " + state_dir_ +
                                       (pid.empty() ? "" : " (pid " + pid + ")") + "; " + lock_path +
                                       " is locked");
      }
      return Status::IOError(lock_path + ": cannot lock: " + std::strerror(error));
    }
    std::string pid = std::to_string(::getpid()) + "\n";
    if (::ftruncate(lock_fd_, 0) != 0 || ::pwrite(lock_fd_, pid.data(), pid.size(), 0) < 0) {
      return Status::IOError(lock_path + ": cannot write the pid: " + std::strerror(errno));
    }
    return Status::OK();
  }

  std::string state_dir_;
  std::string path_;
  std::unique_ptr<SqliteDatabase> db_;
  int lock_fd_ = -1;
};

}  // namespace

Result<std::unique_ptr<LedgerDatabase>> OpenSqliteLedgerDatabase(const std::string& state_dir, bool write) {
  if (state_dir.empty()) return Status::InvalidArgument("ledger: the state dir is empty");
  const std::string path = (fs::path(state_dir) / "ledger.db").string();
  std::error_code ec;
  if (write) {
    fs::create_directories(state_dir, ec);
    if (ec) return Status::IOError("state dir " + state_dir + ": cannot create: " + ec.message());
    if (!fs::is_directory(state_dir, ec))
      return Status::IOError("state dir " + state_dir + " is not a directory");
  } else if (!fs::exists(path, ec)) {
    return Status::NotFound("state dir " + state_dir +
                            " has no ledger.db (has `floe run` run with this config?)");
  }
  auto database = std::make_unique<SqliteLedgerDatabase>(state_dir, path);
  FLOE_RETURN_IF_ERROR(database->Open(write));
  return std::unique_ptr<LedgerDatabase>(std::move(database));
}

}  // namespace floe::ingest
