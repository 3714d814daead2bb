#include "common/status.h"

namespace floe {

const char* ErrorKindName(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kOk: return "OK";
    case ErrorKind::kInvalidArgument: return "Invalid argument";
    case ErrorKind::kNotFound: return "Not found";
    case ErrorKind::kAlreadyExists: return "Already exists";
    case ErrorKind::kIOError: return "IO error";
    case ErrorKind::kCorruption: return "Corruption";
    case ErrorKind::kNotSupported: return "Not supported";
    case ErrorKind::kOutOfRange: return "Out of range";
    case ErrorKind::kSchemaMismatch: return "Schema mismatch";
    case ErrorKind::kCommitFailed: return "Commit failed";
    case ErrorKind::kCommitStateUnknown: return "Commit state unknown";
    case ErrorKind::kCancelled: return "Cancelled";
    case ErrorKind::kFenced: return "Fenced";
    case ErrorKind::kInternal: return "Internal error";
  }
  return "Unknown error";
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  return std::string(ErrorKindName(kind_)) + ": " + message_;
}

Status Status::WithContext(const std::string& context) const {
  if (ok()) return *this;
  return Status(kind_, context + ": " + message_, retryable_);
}

}  // namespace floe
