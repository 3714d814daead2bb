// The optimistic commit loop shared by every table action.
//
// Contract: an attempt builds its change against the given base and commits
// it through TableOperations. A retryable CommitFailed (a lost race or a
// failed requirement) reloads the table and tries again after an exponential,
// jittered backoff, up to the policy's retry count; anything else — a
// non-retryable CommitFailed (a validation conflict), CommitStateUnknown, an
// I/O error — ends the loop with that error. The loop itself deletes no
// files: attempts clean up after themselves (and never after an unknown state).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>

#include "common/status.h"
#include "iceberg/transaction/table_operations.h"

namespace floe::iceberg {

inline constexpr const char* kCommitNumRetriesProperty = "commit.retry.num-retries";
inline constexpr const char* kCommitMinWaitMsProperty = "commit.retry.min-wait-ms";
inline constexpr const char* kCommitMaxWaitMsProperty = "commit.retry.max-wait-ms";

struct RetryPolicy {
  int num_retries = 4;  // attempts = num_retries + 1 (Java's defaults)
  int64_t min_wait_ms = 100;
  int64_t max_wait_ms = 60'000;

  // Java's table properties commit.retry.*; unparsable values keep the defaults.
  static RetryPolicy FromProperties(const std::map<std::string, std::string>& properties);
  // The wait before retry number `retry` (1-based): min * 2^(retry-1), capped, with jitter in [50%, 100%].
  int64_t WaitMs(int retry) const;
};

// A conflict found while validating against a concurrent commit: retrying cannot help.
Status ValidationFailed(const std::string& message);

using CommitAttempt = std::function<Result<LoadedTable>(const LoadedTable& base)>;

// Runs `attempt` against `base`, then against reloaded bases on retryable CommitFailed.
Result<LoadedTable> CommitWithRetry(TableOperations& ops, LoadedTable base, const RetryPolicy& policy,
                                    const CommitAttempt& attempt);

}  // namespace floe::iceberg
