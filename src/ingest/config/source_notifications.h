// Internal to the pipeline config parser: the notification keys of
// [source] (notifications, queue_url, sqs_endpoint, backfill_interval,
// backfill_on_start, visibility_timeout, wait_time, max_messages), read
// with the other [source] keys and checked once the discovery and the uri
// are known. Not for use outside src/ingest/config.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "ingest/config/config.h"
#include "ingest/config/config_section.h"

namespace floe::ingest::config_internal {

struct NotificationKeys {
  std::optional<std::string> notifications, queue_url, sqs_endpoint;
  std::optional<int64_t> backfill_interval_ms, visibility_timeout_ms, wait_time_ms, max_messages;
  std::optional<bool> backfill_on_start;

  // The first key given, in the order above, or nullptr when none is.
  const char* FirstGiven() const;
};

Result<NotificationKeys> ReadNotificationKeys(SectionReader& section);

// Fills source->notifications from `keys` for a file discovery whose uri is
// resolved; refuses a notification kind that does not fit the uri and keys
// that do not apply to the chosen kind, naming them.
Status ApplyNotificationKeys(const SectionReader& section, const NotificationKeys& keys,
                             SourceConfig* source);

}  // namespace floe::ingest::config_internal
