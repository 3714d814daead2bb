// Where a pipeline's ledger lives, from its config: [state] uri (PostgreSQL)
// or the SQLite ledger.db in the state dir.
#pragma once

#include <string>

#include "common/redaction.h"
#include "ingest/config/config.h"
#include "ingest/state/ledger.h"

namespace floe::ingest {

inline LedgerOptions PipelineLedgerOptions(const PipelineConfig& config) {
  // Scale-out: a worker paused inside a ledger call holds the pipeline's
  // lock; the server ends its session after half a lease.
  return LedgerOptions{config.state_dir, config.state_uri, config.name,
                       config.state_uri.empty() ? 0 : config.lease_timeout_ms / 2};
}

// Names the pipeline's ledger in messages (without a password).
inline std::string PipelineLedgerName(const PipelineConfig& config) {
  return config.state_uri.empty() ? config.state_dir : RedactUri(config.state_uri);
}

}  // namespace floe::ingest
