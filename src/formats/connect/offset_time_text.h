// Debezium's zoned temporal strings: io.debezium.time.ZonedTimestamp
// ("2024-03-01T10:15:30.123456+02:00", Java's ISO_OFFSET_DATE_TIME) and
// io.debezium.time.ZonedTime ("10:15:30.5Z", ISO_OFFSET_TIME).
//
// Contract: a date is [+|-]YYYY-MM-DD (more than four year digits need a
// sign, as Java writes them), a time HH:MM[:SS[.F]] with 1..9 fraction
// digits, an offset Z or +HH[:MM[:SS]] / +HHMM within ±18:00; values are
// checked against the calendar (no February 30th, no hour 24). The result
// is microseconds in UTC: since the epoch for a timestamp, since midnight
// (wrapped into one day) for a time. Fraction digits past the sixth must be
// zeros (floe keeps microseconds; nothing is rounded away). Anything else is
// InvalidArgument quoting the text. Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <string_view>

#include "common/status.h"

namespace floe::connect {

Result<int64_t> ParseOffsetTimestampMicros(std::string_view text);
Result<int64_t> ParseOffsetTimeMicros(std::string_view text);

}  // namespace floe::connect
