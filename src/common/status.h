// Status and Result<T>: floe's error values.
//
// Contract: every fallible function returns Status or Result<T>; exceptions
// never cross module boundaries and user input never triggers an assert.
// A Status names what went wrong (kind), where (the message names the file,
// table or column), and whether retrying the same call may succeed.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace floe {

enum class ErrorKind {
  kOk = 0,
  kInvalidArgument,     // the caller or the user's config/input is wrong
  kNotFound,            // a file, table, namespace or key does not exist
  kAlreadyExists,       // create of something that is already there
  kIOError,             // the storage layer failed (disk, network, HTTP)
  kCorruption,          // bytes on disk/wire violate their format
  kNotSupported,        // valid input using a feature floe does not implement
  kOutOfRange,          // a value does not fit the target type or range
  kSchemaMismatch,      // source schema incompatible with the table schema
  kCommitFailed,        // optimistic commit lost a race; reload and retry
  kCommitStateUnknown,  // commit outcome unknown; never delete written files
  kCancelled,           // stopped on request (signal, shutdown)
  kFenced,              // refused: the caller no longer holds the lease it acted under
  kInternal,            // a bug in floe
};

const char* ErrorKindName(ErrorKind kind);

class [[nodiscard]] Status {
 public:
  Status() = default;  // OK
  Status(ErrorKind kind, std::string message, bool retryable = false)
      : kind_(kind), message_(std::move(message)), retryable_(retryable) {}

  static Status OK() { return Status(); }
  static Status InvalidArgument(std::string m) { return {ErrorKind::kInvalidArgument, std::move(m)}; }
  static Status NotFound(std::string m) { return {ErrorKind::kNotFound, std::move(m)}; }
  static Status AlreadyExists(std::string m) { return {ErrorKind::kAlreadyExists, std::move(m)}; }
  static Status IOError(std::string m, bool retryable = false) {
    return {ErrorKind::kIOError, std::move(m), retryable};
  }
  static Status Corruption(std::string m) { return {ErrorKind::kCorruption, std::move(m)}; }
  static Status NotSupported(std::string m) { return {ErrorKind::kNotSupported, std::move(m)}; }
  static Status OutOfRange(std::string m) { return {ErrorKind::kOutOfRange, std::move(m)}; }
  static Status SchemaMismatch(std::string m) { return {ErrorKind::kSchemaMismatch, std::move(m)}; }
  static Status CommitFailed(std::string m) { return {ErrorKind::kCommitFailed, std::move(m), true}; }
  static Status CommitStateUnknown(std::string m) { return {ErrorKind::kCommitStateUnknown, std::move(m)}; }
  static Status Cancelled(std::string m) { return {ErrorKind::kCancelled, std::move(m)}; }
  static Status Fenced(std::string m) { return {ErrorKind::kFenced, std::move(m)}; }
  static Status Internal(std::string m) { return {ErrorKind::kInternal, std::move(m)}; }

  bool ok() const { return kind_ == ErrorKind::kOk; }
  ErrorKind kind() const { return kind_; }
  const std::string& message() const { return message_; }
  bool retryable() const { return retryable_; }

  // "Corruption: <message>", or "OK".
  std::string ToString() const;

  // Returns a copy whose message is "<context>: <message>"; kind and
  // retryability are kept. Used to add the file/table/column as errors rise.
  Status WithContext(const std::string& context) const;

 private:
  ErrorKind kind_ = ErrorKind::kOk;
  std::string message_;
  bool retryable_ = false;
};

// Result<T> holds either a value or a non-OK Status.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : storage_(std::move(value)) {}        // NOLINT: implicit by design
  Result(Status status) : storage_(std::move(status)) {  // NOLINT
    if (std::get<Status>(storage_).ok()) {
      storage_ = Status::Internal("Result constructed from an OK Status without a value");
    }
  }

  bool ok() const { return std::holds_alternative<T>(storage_); }
  const Status& status() const {
    static const Status kOk;
    return ok() ? kOk : std::get<Status>(storage_);
  }
  T& value() & { return std::get<T>(storage_); }
  const T& value() const& { return std::get<T>(storage_); }
  T&& value() && { return std::get<T>(std::move(storage_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T ValueOr(T fallback) const& { return ok() ? value() : std::move(fallback); }

 private:
  std::variant<T, Status> storage_;
};

namespace internal {
inline Status ToStatus(const Status& s) {
  return s;
}
template <typename T>
Status ToStatus(const Result<T>& r) {
  return r.status();
}
}  // namespace internal

}  // namespace floe

#define FLOE_CONCAT_INNER(a, b) a##b
#define FLOE_CONCAT(a, b) FLOE_CONCAT_INNER(a, b)

// Returns early from the enclosing function if `expr` (a Status or Result) failed.
// The Status is copied out inside the full expression: `expr` may be a
// reference into a temporary (`LoadSomething().status()`) that dies at its end.
#define FLOE_RETURN_IF_ERROR(expr)                                        \
  do {                                                                    \
    ::floe::Status floe_status_tmp_ = ::floe::internal::ToStatus((expr)); \
    if (!floe_status_tmp_.ok()) return floe_status_tmp_;                  \
  } while (0)

#define FLOE_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                               \
  if (!tmp.ok()) return tmp.status();              \
  lhs = std::move(tmp).value()

// `FLOE_ASSIGN_OR_RETURN(auto x, MakeX());` declares x from a Result or returns its error.
#define FLOE_ASSIGN_OR_RETURN(lhs, expr) \
  FLOE_ASSIGN_OR_RETURN_IMPL(FLOE_CONCAT(floe_result_, __LINE__), lhs, expr)
