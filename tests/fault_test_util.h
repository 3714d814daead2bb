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
#include <vector>

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

// One test case: a fault of `mode` at call `index` of an operation run
// against a catalog of kind `catalog` ("filesystem" or "sql").
struct FaultCase {
  std::string catalog;
  FaultMode mode = FaultMode::kFail;
  int64_t index = 0;
};

// Every mode at every index below `max_calls` for each catalog, except torn
// writes against the filesystem catalog: its protocol needs atomic create
// (FileIO's contract) and rightly refuses a torn vN.metadata.json.
inline std::vector<FaultCase> FaultCases(const std::vector<std::string>& catalogs, int64_t max_calls) {
  std::vector<FaultCase> cases;
  for (const std::string& catalog : catalogs) {
    for (FaultMode mode : {FaultMode::kFail, FaultMode::kCrashLost, FaultMode::kCrashTorn}) {
      if (catalog == "filesystem" && mode == FaultMode::kCrashTorn) continue;
      for (int64_t index = 0; index < max_calls; ++index) cases.push_back(FaultCase{catalog, mode, index});
    }
  }
  return cases;
}

inline std::string FaultCaseName(const ::testing::TestParamInfo<FaultCase>& info) {
  return (info.param.catalog == "sql" ? std::string("Sqlite") : std::string("Filesystem")) +
         FaultModeName(info.param.mode) + "AtCall" + std::to_string(info.param.index);
}

// Runs `operation(faults, plan)` with `c`'s fault planned (the operation
// arms it with faults.Reset(plan) once its setup is done): in this process
// for kFail, in a child that dies at the fault for the crash modes. `calls`
// is the log of a fault-free run. Skips the case when the index is past the
// operation's calls or the case is a torn write where nothing is published;
// a fault that never came is a failure. The caller checks the outcome unless
// the test IsSkipped() or HasFailure().
inline void InjectFault(const FaultCase& c, const std::vector<std::string>& calls,
                        const std::function<void(FaultInjectingFileIO&, FaultPlan)>& operation) {
  if (c.index >= static_cast<int64_t>(calls.size())) {
    GTEST_SKIP() << "the operation makes " << calls.size() << " calls";
  }
  if (SameAsALostWrite(c.mode, calls[static_cast<size_t>(c.index)])) {
    GTEST_SKIP() << "call " << c.index << " publishes no file: the same case as CrashLost";
  }
  FaultInjectingFileIO faults(MakeLocalFileIO());
  const FaultPlan plan = PlanFor(c.mode, c.index);
  if (c.mode == FaultMode::kFail) {
    operation(faults, plan);
    EXPECT_TRUE(faults.fault_fired()) << "the operation ended before call " << c.index;
    return;
  }
  RunUntilCrash(plan, [&](FaultPlan armed) { operation(faults, std::move(armed)); });
}

// These tests crash processes, never the machine: the page cache survives,
// so they need no fsync and keep their directories on tmpfs when there is
// one (much faster on a busy disk). A TMPDIR the user set wins.
inline void UseTmpfsForTempDirs() {
  if (std::getenv("TMPDIR") == nullptr && ::access("/dev/shm", W_OK) == 0) ::setenv("TMPDIR", "/dev/shm", 0);
}

}  // namespace floe::testing
