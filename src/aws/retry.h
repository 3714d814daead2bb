// Retry pacing shared by floe's AWS clients (S3, the JSON-protocol services):
// exponential backoff with full jitter, bounded by attempts and by time.
//
// Contract: a failed try `attempt` (1 = the first) may be followed by another
// only while attempt < max_attempts and the time since the first try plus the
// drawn delay stays within budget_ms (a zero budget means no retry at all).
// The delay is drawn uniformly from [0, min(max_delay_ms, base_delay_ms *
// 2^(attempt-1))]. NextRetry is thread-safe (a thread-local generator).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "common/status.h"

namespace floe::aws {

struct RetryPolicy {
  int max_attempts = 6;  // total tries, the first included; 1 = no retry
  int64_t budget_ms = 60000;
  int64_t base_delay_ms = 100;
  int64_t max_delay_ms = 5000;
};

// InvalidArgument naming `what` when a field is out of range.
Status ValidateRetryPolicy(const RetryPolicy& policy, const std::string& what);

struct RetryDecision {
  bool retry = false;
  int64_t delay_ms = 0;
  // When !retry: why no more tries, for the error message: "after 6 attempts",
  // "after 2 attempts; retry budget of 1000 ms exhausted"; "" after a single try.
  std::string exhausted;
};

RetryDecision NextRetry(const RetryPolicy& policy, int attempt,
                        std::chrono::steady_clock::time_point first_try);

// The jittered delay alone (exposed for tests).
int64_t FullJitterDelayMs(const RetryPolicy& policy, int attempt);

}  // namespace floe::aws
