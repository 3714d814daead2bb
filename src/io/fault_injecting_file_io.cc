#include "io/fault_injecting_file_io.h"

#include <optional>

namespace floe {

struct FaultInjectingFileIO::State {
  std::mutex mutex;
  FaultPlan plan;
  int64_t calls = 0;
  bool fired = false;
  std::vector<std::string> log;

  // Counts one call; returns the fault to inject into it, if any.
  std::optional<FaultKind> Next(const std::string& call, const std::string& path, FaultEvent* event) {
    std::lock_guard<std::mutex> lock(mutex);
    const int64_t index = calls++;
    log.push_back(std::to_string(index) + " " + call + " " + path);
    *event = FaultEvent{index, call, path};
    if (plan.fail_at < 0) return std::nullopt;
    if (index == plan.fail_at) {
      fired = true;
      return plan.kind;
    }
    if (plan.sticky && index > plan.fail_at) return FaultKind::kError;
    return std::nullopt;
  }

  bool Retryable() {
    std::lock_guard<std::mutex> lock(mutex);
    return plan.retryable;
  }

  Status Error(const FaultEvent& event) {
    return Status::IOError("injected fault: call " + std::to_string(event.index) + " (" + event.call + " " +
                               event.path + ") failed",
                           Retryable());
  }

  // The injected error for `event`, after the plan's hook ran.
  Status Fail(const FaultEvent& event) {
    Status status = Error(event);
    AfterFault(event);
    return status;
  }

  // Runs the plan's hook for the planned fault (not for the sticky ones after it).
  void AfterFault(const FaultEvent& event) {
    std::function<void(const FaultEvent&)> hook;
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (event.index != plan.fail_at) return;
      hook = plan.on_fault;
    }
    if (hook) hook(event);
  }
};

namespace {

using State = FaultInjectingFileIO::State;

class FaultInjectingInputFile final : public InputFile {
 public:
  FaultInjectingInputFile(std::unique_ptr<InputFile> base, std::shared_ptr<State> state)
      : base_(std::move(base)), state_(std::move(state)) {}
  const std::string& path() const override { return base_->path(); }

  Result<int64_t> Size() override {
    FaultEvent event;
    if (state_->Next("Size", path(), &event)) return state_->Fail(event);
    return base_->Size();
  }

  Status ReadAt(int64_t offset, int64_t length, uint8_t* out) override {
    FaultEvent event;
    std::optional<FaultKind> fault = state_->Next("ReadAt", path(), &event);
    if (!fault) return base_->ReadAt(offset, length, out);
    if (*fault == FaultKind::kShortRead && length > 0) {
      const int64_t half = length / 2;
      if (half > 0) (void)base_->ReadAt(offset, half, out);
      Status status = Status::IOError("injected short read: call " + std::to_string(event.index) + " read " +
                                          std::to_string(half) + " of " + std::to_string(length) +
                                          " bytes at offset " + std::to_string(offset) + " of " + path(),
                                      state_->Retryable());
      state_->AfterFault(event);
      return status;
    }
    return state_->Fail(event);
  }

 private:
  std::unique_ptr<InputFile> base_;
  std::shared_ptr<State> state_;
};

class FaultInjectingOutputFile final : public OutputFile {
 public:
  FaultInjectingOutputFile(std::unique_ptr<OutputFile> base, std::shared_ptr<State> state)
      : base_(std::move(base)), state_(std::move(state)), path_(base_->path()) {}
  ~FaultInjectingOutputFile() override {
    if (base_) base_->Abort();
  }
  const std::string& path() const override { return path_; }
  int64_t Position() const override { return static_cast<int64_t>(bytes_.size()); }

  Status Write(std::span<const uint8_t> bytes) override {
    FaultEvent event;
    if (state_->Next("Write", path(), &event)) return state_->Fail(event);
    if (!base_) return Status::Internal(path_ + ": write after close");
    bytes_.insert(bytes_.end(), bytes.begin(), bytes.end());
    return Status::OK();
  }

  Result<int64_t> Close() override {
    FaultEvent event;
    std::optional<FaultKind> fault = state_->Next("Close", path(), &event);
    if (!base_) return Status::Internal(path_ + ": close after close");
    std::unique_ptr<OutputFile> base = std::move(base_);
    if (!fault) {
      FLOE_RETURN_IF_ERROR(base->Write(std::span<const uint8_t>(bytes_)));
      return base->Close();
    }
    switch (*fault) {
      case FaultKind::kTornWrite: {
        const size_t half = bytes_.size() / 2;
        Status written = base->Write(std::span<const uint8_t>(bytes_.data(), half));
        if (written.ok()) (void)base->Close();
        Status status = Status::IOError("injected torn write: call " + std::to_string(event.index) +
                                            " published " + std::to_string(half) + " of " +
                                            std::to_string(bytes_.size()) + " bytes of " + path_,
                                        state_->Retryable());
        state_->AfterFault(event);
        return status;
      }
      case FaultKind::kLostWrite: {
        base->Abort();
        const auto size = static_cast<int64_t>(bytes_.size());
        state_->AfterFault(event);
        return size;
      }
      default: base->Abort(); return state_->Fail(event);
    }
  }

  void Abort() override {
    if (base_) base_->Abort();
    base_.reset();
    bytes_.clear();
  }

 private:
  std::unique_ptr<OutputFile> base_;
  std::shared_ptr<State> state_;
  std::string path_;
  std::vector<uint8_t> bytes_;
};

}  // namespace

FaultInjectingFileIO::FaultInjectingFileIO(std::shared_ptr<FileIO> base, FaultPlan plan)
    : base_(std::move(base)), state_(std::make_shared<State>()) {
  state_->plan = std::move(plan);
}

void FaultInjectingFileIO::Reset(FaultPlan plan) {
  std::lock_guard<std::mutex> lock(state_->mutex);
  state_->plan = std::move(plan);
  state_->calls = 0;
  state_->fired = false;
  state_->log.clear();
}

int64_t FaultInjectingFileIO::calls() const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  return state_->calls;
}

bool FaultInjectingFileIO::fault_fired() const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  return state_->fired;
}

std::shared_ptr<FileIO> FaultInjectingFileIO::Wrap(std::shared_ptr<FileIO> other_base) const {
  return std::shared_ptr<FileIO>(new FaultInjectingFileIO(std::move(other_base), state_));
}

std::vector<std::string> FaultInjectingFileIO::CallLog() const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  return state_->log;
}

Result<std::unique_ptr<InputFile>> FaultInjectingFileIO::OpenRead(const std::string& path) {
  FaultEvent event;
  if (state_->Next("OpenRead", path, &event)) return state_->Fail(event);
  FLOE_ASSIGN_OR_RETURN(std::unique_ptr<InputFile> file, base_->OpenRead(path));
  return std::unique_ptr<InputFile>(std::make_unique<FaultInjectingInputFile>(std::move(file), state_));
}

Result<std::unique_ptr<OutputFile>> FaultInjectingFileIO::Create(const std::string& path,
                                                                 CreateOptions options) {
  FaultEvent event;
  if (state_->Next("Create", path, &event)) return state_->Fail(event);
  FLOE_ASSIGN_OR_RETURN(std::unique_ptr<OutputFile> file, base_->Create(path, options));
  return std::unique_ptr<OutputFile>(std::make_unique<FaultInjectingOutputFile>(std::move(file), state_));
}

Result<FileInfo> FaultInjectingFileIO::Stat(const std::string& path) {
  FaultEvent event;
  if (state_->Next("Stat", path, &event)) return state_->Fail(event);
  return base_->Stat(path);
}

Result<bool> FaultInjectingFileIO::Exists(const std::string& path) {
  FaultEvent event;
  if (state_->Next("Exists", path, &event)) return state_->Fail(event);
  return base_->Exists(path);
}

Result<std::vector<FileInfo>> FaultInjectingFileIO::List(const std::string& prefix) {
  FaultEvent event;
  if (state_->Next("List", prefix, &event)) return state_->Fail(event);
  return base_->List(prefix);
}

Status FaultInjectingFileIO::Delete(const std::string& path) {
  FaultEvent event;
  if (state_->Next("Delete", path, &event)) return state_->Fail(event);
  return base_->Delete(path);
}

}  // namespace floe
