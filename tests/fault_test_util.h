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
#include <optional>
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

// How many cases a test runs. FLOE_FAULT_ALL=1 is the exhaustive mode: a
// case at every call index below `max_calls` (minutes per test). By default
// a fixed spread keeps the unit suite fast (seconds): the first and the
// last call, every call that publishes or removes a file (an OutputFile
// Close — data files, manifests, the manifest list, the metadata file the
// commit publishes — or a Delete), and every `stride`-th call between them;
// CrashTorn only at the publishing calls, as in the exhaustive mode. The
// cases of the default mode are `slots` positions in that spread, resolved
// against the call log of a fault-free run when the case runs.
struct FaultCoverage {
  int64_t max_calls = 0;
  int64_t stride = 16;
  int64_t slots = 0;
};

inline bool ExhaustiveFaultMode() {
  const char* all = std::getenv("FLOE_FAULT_ALL");
  return all != nullptr && std::string(all) == "1";
}

// The call indices the default mode runs for `mode`, ascending.
inline std::vector<int64_t> SpreadIndices(const std::vector<std::string>& calls, FaultMode mode,
                                          int64_t stride) {
  std::vector<int64_t> out;
  const auto n = static_cast<int64_t>(calls.size());
  for (int64_t index = 0; index < n; ++index) {
    const std::string& call = calls[static_cast<size_t>(index)];
    const bool publishes = call.find(" Close ") != std::string::npos;
    const bool removes = call.find(" Delete ") != std::string::npos;
    if (mode == FaultMode::kCrashTorn) {
      if (publishes) out.push_back(index);
    } else if (index == 0 || index == n - 1 || index % stride == 0 || publishes || removes) {
      out.push_back(index);
    }
  }
  return out;
}

// One test case: a fault of `mode` at call `index` (in the default mode, at
// the `index`-th call of the spread) of an operation run against a catalog
// of kind `catalog` ("filesystem" or "sql").
struct FaultCase {
  std::string catalog;
  FaultMode mode = FaultMode::kFail;
  int64_t index = 0;
  bool in_spread = false;
};

// Every mode for each catalog, except torn writes against the filesystem
// catalog: its protocol needs atomic create (FileIO's contract) and rightly
// refuses a torn vN.metadata.json. Exhaustive: every index below
// max_calls; default: `slots` spread positions.
inline std::vector<FaultCase> FaultCases(const std::vector<std::string>& catalogs, FaultCoverage coverage) {
  const bool all = ExhaustiveFaultMode();
  std::vector<FaultCase> cases;
  for (const std::string& catalog : catalogs) {
    for (FaultMode mode : {FaultMode::kFail, FaultMode::kCrashLost, FaultMode::kCrashTorn}) {
      if (catalog == "filesystem" && mode == FaultMode::kCrashTorn) continue;
      const int64_t count = all ? coverage.max_calls : coverage.slots;
      for (int64_t index = 0; index < count; ++index) cases.push_back(FaultCase{catalog, mode, index, !all});
    }
  }
  return cases;
}

inline std::string FaultCaseName(const ::testing::TestParamInfo<FaultCase>& info) {
  return (info.param.catalog == "sql" ? std::string("Sqlite") : std::string("Filesystem")) +
         FaultModeName(info.param.mode) + (info.param.in_spread ? "AtSpread" : "AtCall") +
         std::to_string(info.param.index);
}

// The call index case `c` faults, or nullopt when it names none (past the
// operation's calls, or past the spread).
inline std::optional<int64_t> FaultCallIndex(const FaultCase& c, const std::vector<std::string>& calls,
                                             const FaultCoverage& coverage) {
  if (!c.in_spread) {
    if (c.index >= static_cast<int64_t>(calls.size())) return std::nullopt;
    return c.index;
  }
  const std::vector<int64_t> spread = SpreadIndices(calls, c.mode, coverage.stride);
  if (c.index >= static_cast<int64_t>(spread.size())) return std::nullopt;
  return spread[static_cast<size_t>(c.index)];
}

// "the fault is at call 17 Close /w/..." for SCOPED_TRACE.
inline std::string FaultTrace(const FaultCase& c, const std::vector<std::string>& calls,
                              const FaultCoverage& coverage) {
  const std::optional<int64_t> index = FaultCallIndex(c, calls, coverage);
  return index ? "the fault is at call " + calls[static_cast<size_t>(*index)] : "";
}

// The guard every fault test has: each call the operation makes has a case
// in the exhaustive mode, and each call of the spread in the default mode.
inline void ExpectTheCasesCoverEveryCall(const std::vector<std::string>& calls, const FaultCoverage& coverage,
                                         const std::string& what) {
  const auto n = static_cast<int64_t>(calls.size());
  EXPECT_LE(n, coverage.max_calls) << what << ": raise max_calls to " << n << " so every call has a case";
  for (FaultMode mode : {FaultMode::kFail, FaultMode::kCrashLost, FaultMode::kCrashTorn}) {
    const auto spread = static_cast<int64_t>(SpreadIndices(calls, mode, coverage.stride).size());
    EXPECT_LE(spread, coverage.slots) << what << ", " << FaultModeName(mode) << ": raise slots to " << spread
                                      << " so every call of the default spread has a case";
  }
}

// Runs `operation(faults, plan)` with `c`'s fault planned (the operation
// arms it with faults.Reset(plan) once its setup is done): in this process
// for kFail, in a child that dies at the fault for the crash modes. `calls`
// is the log of a fault-free run. Skips the case when it names no call or
// is a torn write where nothing is published; a fault that never came is a
// failure. The caller checks the outcome unless the test IsSkipped() or
// HasFailure().
inline void InjectFault(const FaultCase& c, const std::vector<std::string>& calls,
                        const FaultCoverage& coverage,
                        const std::function<void(FaultInjectingFileIO&, FaultPlan)>& operation) {
  const std::optional<int64_t> index = FaultCallIndex(c, calls, coverage);
  if (!index) {
    GTEST_SKIP() << "the operation makes " << calls.size() << " calls"
                 << (c.in_spread ? ", fewer in the default spread (FLOE_FAULT_ALL=1 runs every call)" : "");
  }
  if (SameAsALostWrite(c.mode, calls[static_cast<size_t>(*index)])) {
    GTEST_SKIP() << "call " << *index << " publishes no file: the same case as CrashLost";
  }
  FaultInjectingFileIO faults(MakeLocalFileIO());
  const FaultPlan plan = PlanFor(c.mode, *index);
  if (c.mode == FaultMode::kFail) {
    operation(faults, plan);
    EXPECT_TRUE(faults.fault_fired()) << "the operation ended before call " << *index;
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
