#include "aws/retry.h"

#include <algorithm>
#include <random>

namespace floe::aws {

Status ValidateRetryPolicy(const RetryPolicy& policy, const std::string& what) {
  if (policy.max_attempts < 1 || policy.max_attempts > 100) {
    return Status::InvalidArgument(what + " max_attempts must be within 1..100");
  }
  if (policy.budget_ms < 0) return Status::InvalidArgument(what + " retry_budget_ms must not be negative");
  if (policy.base_delay_ms < 0 || policy.max_delay_ms < 0) {
    return Status::InvalidArgument(what + " retry delays must not be negative");
  }
  return Status::OK();
}

int64_t FullJitterDelayMs(const RetryPolicy& policy, int attempt) {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  int64_t ceiling = policy.base_delay_ms;
  for (int i = 1; i < attempt && ceiling < policy.max_delay_ms; ++i) ceiling *= 2;
  ceiling = std::min(ceiling, policy.max_delay_ms);
  if (ceiling <= 0) return 0;
  return std::uniform_int_distribution<int64_t>(0, ceiling)(rng);
}

RetryDecision NextRetry(const RetryPolicy& policy, int attempt,
                        std::chrono::steady_clock::time_point first_try) {
  RetryDecision decision;
  const std::string tries = std::to_string(attempt) + " attempt" + (attempt > 1 ? "s" : "");
  if (attempt >= policy.max_attempts) {
    if (attempt > 1) decision.exhausted = "after " + tries;
    return decision;
  }
  const int64_t delay_ms = FullJitterDelayMs(policy, attempt);
  const int64_t elapsed_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - first_try)
          .count();
  // A zero budget means no retry at all, even when the first try and the
  // drawn delay both round to 0 ms (full jitter draws 0 now and then).
  if (policy.budget_ms <= 0 || elapsed_ms + delay_ms > policy.budget_ms) {
    decision.exhausted =
        "after " + tries + "; retry budget of " + std::to_string(policy.budget_ms) + " ms exhausted";
    return decision;
  }
  decision.retry = true;
  decision.delay_ms = delay_ms;
  return decision;
}

}  // namespace floe::aws
