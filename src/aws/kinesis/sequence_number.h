// Kinesis sequence numbers: decimal strings of up to 129 digits (the API's
// pattern is 0|([1-9]\d{0,128}); real ones are 56 digits, ~186 bits), kept as
// text and never parsed into machine integers.
//
// Contract: IsSequenceNumber accepts exactly the API's pattern (no sign, no
// leading zeros except "0" itself). CompareSequenceNumbers orders valid
// sequence numbers numerically: the shorter is smaller, then by digits. Pure
// functions: thread-safe.
#pragma once

#include <string_view>

namespace floe::aws::kinesis {

inline constexpr size_t kMaxSequenceNumberDigits = 129;

bool IsSequenceNumber(std::string_view text);
// <0, 0, >0 as a is before, equal to or after b.
int CompareSequenceNumbers(std::string_view a, std::string_view b);

}  // namespace floe::aws::kinesis
