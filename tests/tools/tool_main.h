// The frame every C++ test tool shares: `<tool> OUT_DIR` runs `run(OUT_DIR)`
// (the directory is created first); an error is printed to stderr with the
// tool's name and the process exits 1, so the JS test that runs the tool
// fails with the reason. Tools write fixtures for tests/interop and check
// what they wrote with floe's own readers before they exit 0.
#pragma once

#include <filesystem>
#include <functional>
#include <iostream>
#include <string>

#include "common/status.h"

namespace floe::tools {

inline int ToolMain(int argc, char** argv, const std::function<Status(const std::string& out_dir)>& run) {
  const std::string name = argc > 0 ? std::filesystem::path(argv[0]).filename().string() : "tool";
  if (argc != 2 || std::string(argv[1]).empty()) {
    std::cerr << "usage: " << name << " OUT_DIR\n";
    return 2;
  }
  std::error_code ec;
  std::filesystem::create_directories(argv[1], ec);
  if (ec) {
    std::cerr << name << ": cannot create " << argv[1] << ": " << ec.message() << "\n";
    return 1;
  }
  Status status = run(argv[1]);
  if (!status.ok()) {
    std::cerr << name << ": " << status.ToString() << "\n";
    return 1;
  }
  return 0;
}

// InvalidArgument-free check for a tool's self-verification: Internal naming `what`.
inline Status Check(bool condition, const std::string& what) {
  return condition ? Status::OK() : Status::Internal("check failed: " + what);
}

}  // namespace floe::tools
