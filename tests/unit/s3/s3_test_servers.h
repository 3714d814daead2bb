// Test helpers: start node tools (s3rver, the fault proxy) as child processes.
//
// A child gets a pipe as stdin and exits when it closes, so a crashed test
// leaves no server behind; the destructor also sends SIGTERM and reaps it.
#pragma once

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "child_process.h"

namespace floe::testing {

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
