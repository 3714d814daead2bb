// Test helper: a child process (a test server or tool) driven over pipes.
//
// The child gets a pipe as stdin (so a tool that exits on end of input dies
// with a crashed test), its stdout is read line by line, and its stderr goes
// to a log file. The destructor closes stdin, sends SIGTERM and reaps it.
// Not thread-safe.
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

extern char** environ;

namespace floe::testing {

class ChildProcess {
 public:
  ChildProcess() = default;
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  ~ChildProcess() { Stop(); }

  // Spawns `argv[0]` (looked up on PATH) with stderr going to `log_path`.
  // Returns false, with the reason in error(), when it cannot be started.
  bool Start(const std::vector<std::string>& argv, const std::string& log_path) {
    int in_pipe[2];
    int out_pipe[2];
    if (argv.empty() || ::pipe(in_pipe) != 0 || ::pipe(out_pipe) != 0) {
      error_ = "pipe() failed";
      return false;
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in_pipe[0], 0);
    posix_spawn_file_actions_adddup2(&actions, out_pipe[1], 1);
    posix_spawn_file_actions_addopen(&actions, 2, log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addclose(&actions, in_pipe[1]);
    posix_spawn_file_actions_addclose(&actions, out_pipe[0]);
    std::vector<std::string> storage = argv;
    std::vector<char*> args;
    for (std::string& arg : storage) args.push_back(arg.data());
    args.push_back(nullptr);
    int rc = posix_spawnp(&pid_, args[0], &actions, nullptr, args.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(in_pipe[0]);
    ::close(out_pipe[1]);
    stdin_fd_ = in_pipe[1];
    stdout_fd_ = out_pipe[0];
    ::fcntl(stdin_fd_, F_SETFD, FD_CLOEXEC);
    ::fcntl(stdout_fd_, F_SETFD, FD_CLOEXEC);
    if (rc != 0) {
      pid_ = -1;
      error_ = "cannot run " + argv[0];
      return false;
    }
    return true;
  }

  // The next line of stdout (without its newline), or nullopt at end of
  // output or when `timeout` passes first.
  std::optional<std::string> ReadLine(std::chrono::milliseconds timeout) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    while (true) {
      if (size_t nl = buffer_.find('\n'); nl != std::string::npos) {
        std::string line = buffer_.substr(0, nl);
        buffer_.erase(0, nl + 1);
        return line;
      }
      auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0 || stdout_fd_ < 0) return std::nullopt;
      pollfd pfd{stdout_fd_, POLLIN, 0};
      if (::poll(&pfd, 1, static_cast<int>(left.count())) <= 0) continue;
      char chunk[4096];
      ssize_t n = ::read(stdout_fd_, chunk, sizeof(chunk));
      if (n <= 0) return std::nullopt;
      buffer_.append(chunk, static_cast<size_t>(n));
    }
  }

  // Reads lines until one starts with `prefix`; returns the rest of it.
  std::optional<std::string> WaitForLine(std::string_view prefix, std::chrono::milliseconds timeout) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    while (true) {
      auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      auto line = ReadLine(left);
      if (!line) return std::nullopt;
      if (line->starts_with(prefix)) return line->substr(prefix.size());
    }
  }

  bool WriteLine(std::string_view line) {
    std::string text(line);
    text.push_back('\n');
    return Write(text);
  }

  bool Write(std::string_view bytes) {
    for (size_t done = 0; done < bytes.size();) {
      ssize_t n = ::write(stdin_fd_, bytes.data() + done, bytes.size() - done);
      if (n <= 0) return false;
      done += static_cast<size_t>(n);
    }
    return true;
  }

  // Closes stdin, reads stdout to its end into *output (when given) and
  // waits for the child; returns its exit code, or -1 when it was killed.
  int Finish(std::string* output = nullptr) {
    if (stdin_fd_ >= 0) ::close(stdin_fd_);
    stdin_fd_ = -1;
    std::string all = std::move(buffer_);
    buffer_.clear();
    char chunk[4096];
    for (ssize_t n; stdout_fd_ >= 0 && (n = ::read(stdout_fd_, chunk, sizeof(chunk))) > 0;) {
      all.append(chunk, static_cast<size_t>(n));
    }
    if (output != nullptr) *output = std::move(all);
    int status = 0;
    if (pid_ > 0) ::waitpid(pid_, &status, 0);
    pid_ = -1;
    if (stdout_fd_ >= 0) ::close(stdout_fd_);
    stdout_fd_ = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }

  void Stop() {
    if (stdin_fd_ >= 0) ::close(stdin_fd_);
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      int status = 0;
      ::waitpid(pid_, &status, 0);
      pid_ = -1;
    }
    if (stdout_fd_ >= 0) ::close(stdout_fd_);
    stdin_fd_ = stdout_fd_ = -1;
  }

  bool running() const { return pid_ > 0; }
  const std::string& error() const { return error_; }

 private:
  pid_t pid_ = -1;
  int stdin_fd_ = -1;
  int stdout_fd_ = -1;
  std::string buffer_;
  std::string error_;
};

// Runs a program to completion with `input` on stdin; returns its exit code
// (-1 when it could not run or was killed) and its stdout in *output.
inline int RunProgram(const std::vector<std::string>& argv, std::string_view input,
                      const std::string& log_path, std::string* output = nullptr) {
  ChildProcess child;
  if (!child.Start(argv, log_path)) return -1;
  if (!child.Write(input)) return -1;
  return child.Finish(output);
}

// A node tool (tests/tools/*.mjs) that prints "ready <port>" once it listens.
class NodeProcess {
 public:
  // Spawns `node <args...>` with stderr going to `log_path`, then waits for a
  // "ready <port>" line on stdout. Returns the port, or nullopt (with the
  // reason in error()) when node is missing or the tool did not come up.
  std::optional<int> Start(const std::vector<std::string>& args, const std::string& log_path) {
    std::vector<std::string> argv = {"node"};
    argv.insert(argv.end(), args.begin(), args.end());
    if (!child_.Start(argv, log_path)) {
      error_ = "cannot run node (is Node.js installed and on PATH?)";
      return std::nullopt;
    }
    if (auto port = child_.WaitForLine("ready ", std::chrono::seconds(20))) return std::stoi(*port);
    error_ = "node tool did not print 'ready <port>' (see " + log_path + ")";
    Stop();
    return std::nullopt;
  }

  void Stop() { child_.Stop(); }

  const std::string& error() const { return error_; }

 private:
  ChildProcess child_;
  std::string error_;
};

}  // namespace floe::testing
