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
