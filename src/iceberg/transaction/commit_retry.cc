#include "iceberg/transaction/commit_retry.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <random>
#include <thread>

namespace floe::iceberg {

namespace {

template <typename T>
void ParseProperty(const std::map<std::string, std::string>& properties, const char* key, T min_value,
                   T* out) {
  auto it = properties.find(key);
  if (it == properties.end()) return;
  T parsed{};
  const std::string& text = it->second;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), parsed);
  if (ec == std::errc() && ptr == text.data() + text.size() && parsed >= min_value) *out = parsed;
}

}  // namespace

RetryPolicy RetryPolicy::FromProperties(const std::map<std::string, std::string>& properties) {
  RetryPolicy policy;
  ParseProperty(properties, kCommitNumRetriesProperty, 0, &policy.num_retries);
  ParseProperty(properties, kCommitMinWaitMsProperty, int64_t{0}, &policy.min_wait_ms);
  ParseProperty(properties, kCommitMaxWaitMsProperty, int64_t{0}, &policy.max_wait_ms);
  policy.max_wait_ms = std::max(policy.max_wait_ms, policy.min_wait_ms);
  return policy;
}

int64_t RetryPolicy::WaitMs(int retry) const {
  int64_t wait = min_wait_ms;
  for (int i = 1; i < retry && wait < max_wait_ms; ++i) wait *= 2;
  wait = std::min(wait, max_wait_ms);
  if (wait <= 1) return wait;
  thread_local std::mt19937_64 rng{std::random_device{}()};
  std::uniform_int_distribution<int64_t> jitter(wait / 2, wait);
  return jitter(rng);
}

Status ValidationFailed(const std::string& message) {
  return Status(ErrorKind::kCommitFailed, "validation failed: " + message, /*retryable=*/false);
}

Result<LoadedTable> CommitWithRetry(TableOperations& ops, LoadedTable base, const RetryPolicy& policy,
                                    const CommitAttempt& attempt) {
  for (int retry = 0;; ++retry) {
    Result<LoadedTable> committed = attempt(base);
    if (committed.ok()) return committed;
    const Status& status = committed.status();
    if (status.kind() != ErrorKind::kCommitFailed || !status.retryable()) return status;
    if (retry >= policy.num_retries) {
      return status.WithContext("commit to " + ops.name() + " failed after " + std::to_string(retry + 1) +
                                " attempts");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(policy.WaitMs(retry + 1)));
    FLOE_ASSIGN_OR_RETURN(base, ops.Load());
  }
}

}  // namespace floe::iceberg
