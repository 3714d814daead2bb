// FaultInjectingFileIO: a FileIO wrapper for tests that makes one chosen I/O
// call fail the way storage fails, so every failure point of an operation can
// be tested one call at a time (LevelDB's fault-injection Env is the model).
//
// Contract: every fallible call through the wrapper is counted, from 0, in
// the order it is made: FileIO::OpenRead, Create, Stat, Exists, List and
// Delete, InputFile::Size and ReadAt, OutputFile::Write and Close (Abort
// cannot fail and is not counted). The call whose index is plan.fail_at
// fails, by plan.kind:
//   kError      the call does nothing and returns an IOError naming the call,
//               its path and its index;
//   kShortRead  a ReadAt fills only the first half of the range, then fails;
//   kTornWrite  a Close publishes only the first half of the file's bytes
//               (a partial object at the path, as a crash mid-write leaves on
//               storage without atomic publish), then fails;
//   kLostWrite  a Close reports success but publishes nothing (the write was
//               lost, as an unsynced write is at a crash).
// kShortRead on a call other than ReadAt, and kTornWrite / kLostWrite on a
// call other than Close, act as kError. With plan.sticky every later call
// fails too (kError): the storage is gone. plan.on_fault, when set, runs
// right after the fault took effect (a test's simulated crash calls _exit
// there). Output files are buffered in memory and handed to the base FileIO
// at Close, so a failed or torn file is never partly written before.
// Thread-safe: calls may come from several threads (the counter is shared);
// a test that needs reproducible indices runs the code under test on one
// thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "io/file_io.h"

namespace floe {

enum class FaultKind { kError, kShortRead, kTornWrite, kLostWrite };

struct FaultEvent {
  int64_t index = 0;
  std::string call;  // "OpenRead", "ReadAt", "Close", ...
  std::string path;
};

struct FaultPlan {
  int64_t fail_at = -1;  // -1: nothing fails (count only)
  FaultKind kind = FaultKind::kError;
  bool sticky = false;
  bool retryable = false;  // the injected IOErrors' retryable flag
  std::function<void(const FaultEvent&)> on_fault;
};

class FaultInjectingFileIO final : public FileIO {
 public:
  explicit FaultInjectingFileIO(std::shared_ptr<FileIO> base, FaultPlan plan = {});

  // Replaces the plan and restarts the count at 0.
  void Reset(FaultPlan plan);
  // Calls counted since the last Reset.
  int64_t calls() const;
  // Whether the planned fault has happened.
  bool fault_fired() const;
  // "17 Close /w/data/a.parquet" for each call so far (for failure messages).
  std::vector<std::string> CallLog() const;
  // A view of this wrapper over another FileIO: the same plan and the same
  // counter, so the calls of all the FileIOs an operation uses (source,
  // warehouse, state) are numbered in one sequence.
  std::shared_ptr<FileIO> Wrap(std::shared_ptr<FileIO> other_base) const;

  Result<std::unique_ptr<InputFile>> OpenRead(const std::string& path) override;
  Result<std::unique_ptr<OutputFile>> Create(const std::string& path, CreateOptions options = {}) override;
  Result<FileInfo> Stat(const std::string& path) override;
  Result<bool> Exists(const std::string& path) override;
  Result<std::vector<FileInfo>> List(const std::string& prefix) override;
  Status Delete(const std::string& path) override;

  // Shared with the files the wrapper hands out, which may outlive it.
  struct State;

 private:
  FaultInjectingFileIO(std::shared_ptr<FileIO> base, std::shared_ptr<State> state)
      : base_(std::move(base)), state_(std::move(state)) {}

  std::shared_ptr<FileIO> base_;
  std::shared_ptr<State> state_;
};

}  // namespace floe
