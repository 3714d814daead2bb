// Test helpers: start node tools (s3rver, the fault proxy) as child processes.
//
// A child gets a pipe as stdin and exits when it closes, so a crashed test
// leaves no server behind; the destructor also sends SIGTERM and reaps it.
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

extern char** environ;

namespace floe::testing {

class NodeProcess {
 public:
  NodeProcess() = default;
  NodeProcess(const NodeProcess&) = delete;
  NodeProcess& operator=(const NodeProcess&) = delete;
  ~NodeProcess() { Stop(); }

  // Spawns `node <args...>` with stderr going to `log_path`, then waits for a
  // "ready <port>" line on stdout. Returns the port, or nullopt (with the
  // reason in error()) when node is missing or the tool did not come up.
  std::optional<int> Start(const std::vector<std::string>& args, const std::string& log_path) {
    int in_pipe[2];
    int out_pipe[2];
    if (::pipe(in_pipe) != 0 || ::pipe(out_pipe) != 0) {
      error_ = "pipe() failed";
      return std::nullopt;
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in_pipe[0], 0);
    posix_spawn_file_actions_adddup2(&actions, out_pipe[1], 1);
    posix_spawn_file_actions_addopen(&actions, 2, log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addclose(&actions, in_pipe[1]);
    posix_spawn_file_actions_addclose(&actions, out_pipe[0]);
    std::vector<std::string> argv_storage = {"node"};
    argv_storage.insert(argv_storage.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& arg : argv_storage) argv.push_back(arg.data());
    argv.push_back(nullptr);
    int rc = posix_spawnp(&pid_, "node", &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(in_pipe[0]);
    ::close(out_pipe[1]);
    stdin_fd_ = in_pipe[1];
    stdout_fd_ = out_pipe[0];
    ::fcntl(stdin_fd_, F_SETFD, FD_CLOEXEC);
    ::fcntl(stdout_fd_, F_SETFD, FD_CLOEXEC);
    if (rc != 0) {
      pid_ = -1;
      error_ = "cannot run node (is Node.js installed and on PATH?)";
      return std::nullopt;
    }
    std::string line;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (std::chrono::steady_clock::now() < deadline) {
      pollfd pfd{stdout_fd_, POLLIN, 0};
      if (::poll(&pfd, 1, 200) <= 0) continue;
      char c;
      ssize_t n = ::read(stdout_fd_, &c, 1);
      if (n <= 0) break;
      if (c != '\n') {
        line.push_back(c);
        continue;
      }
      if (line.rfind("ready ", 0) == 0) return std::stoi(line.substr(6));
      line.clear();
    }
    error_ = "node tool did not print 'ready <port>' (see " + log_path + ")";
    Stop();
    return std::nullopt;
  }

  void Stop() {
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      int status = 0;
      ::waitpid(pid_, &status, 0);
      pid_ = -1;
    }
    if (stdin_fd_ >= 0) ::close(stdin_fd_);
    if (stdout_fd_ >= 0) ::close(stdout_fd_);
    stdin_fd_ = stdout_fd_ = -1;
  }

  const std::string& error() const { return error_; }

 private:
  pid_t pid_ = -1;
  int stdin_fd_ = -1;
  int stdout_fd_ = -1;
  std::string error_;
};

inline std::filesystem::path SourceDir() {
  return FLOE_SOURCE_DIR;
}

// Why S3 server tests cannot run here, or "" when they can.
inline std::string S3ToolsMissingReason() {
  if (!std::filesystem::exists(SourceDir() / "tests/node_modules/s3rver/package.json")) {
    return "s3rver is not installed (run npm ci in tests/)";
  }
  return "";
}

}  // namespace floe::testing
