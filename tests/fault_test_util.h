// What the fault-injection tests share (pipeline, commit, compaction): the
// three ways a call can fail, and a simulated crash — the operation runs in
// a child process that dies (_exit) at the planned call, so what the rerun
// finds is exactly what the storage holds at that moment.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>

#include "io/fault_injecting_file_io.h"

namespace floe::testing {

enum class FaultMode {
  kFail,       // the call fails (a retryable storage error), the operation goes on
  kCrashLost,  // the process dies at the call; a Close publishes nothing
  kCrashTorn,  // the process dies at the call; a Close publishes half the file first
};

inline const char* FaultModeName(FaultMode mode) {
  switch (mode) {
    case FaultMode::kFail: return "Fail";
    case FaultMode::kCrashLost: return "CrashLost";
    case FaultMode::kCrashTorn: return "CrashTorn";
  }
  return "?";
}

// The plan for `mode` at call `index`: injected errors are retryable, as
// object stores answer (503, timeouts).
inline FaultPlan PlanFor(FaultMode mode, int64_t index) {
  FaultPlan plan;
  plan.fail_at = index;
  plan.retryable = true;
  if (mode == FaultMode::kCrashLost) plan.kind = FaultKind::kLostWrite;
  if (mode == FaultMode::kCrashTorn) plan.kind = FaultKind::kTornWrite;
  return plan;
}

inline constexpr int kCrashedExit = 86;

// A torn write differs from a lost one only where a file is published: at
// any other call both are the same crash, and the torn case is skipped.
inline bool SameAsALostWrite(FaultMode mode, const std::string& logged_call) {
  return mode == FaultMode::kCrashTorn && logged_call.find(" Close ") == std::string::npos;
}

// Runs `operation(plan)` in a child process that dies at the planned fault.
// True when it died there; false (a test failure) when the operation ended
// before reaching it or the child died another way.
inline bool RunUntilCrash(FaultPlan plan, const std::function<void(FaultPlan)>& operation) {
  plan.on_fault = [](const FaultEvent&) { _exit(kCrashedExit); };
  std::fflush(nullptr);
  const pid_t child = fork();
  if (child < 0) {
    ADD_FAILURE() << "fork failed";
    return false;
  }
  if (child == 0) {
    operation(std::move(plan));
    _exit(0);  // not reached when the fault came
  }
  int status = 0;
  if (waitpid(child, &status, 0) != child) {
    ADD_FAILURE() << "waitpid failed";
    return false;
  }
  if (!WIFEXITED(status)) {
    ADD_FAILURE() << "the operation's process died of signal " << WTERMSIG(status);
    return false;
  }
  if (WEXITSTATUS(status) != kCrashedExit) {
    ADD_FAILURE() << "the operation ended before call " << plan.fail_at;
    return false;
  }
  return true;
}

// These tests crash processes, never the machine: the page cache survives,
// so they need no fsync and keep their directories on tmpfs when there is
// one (much faster on a busy disk). A TMPDIR the user set wins.
inline void UseTmpfsForTempDirs() {
  if (std::getenv("TMPDIR") == nullptr && ::access("/dev/shm", W_OK) == 0) ::setenv("TMPDIR", "/dev/shm", 0);
}

}  // namespace floe::testing
