// UUIDs as text: the canonical 8-4-4-4-12 hex form and its 16 big-endian bytes.
//
// Contract: ParseUuid accepts exactly 36 characters, hex digits of either
// case with dashes at positions 8, 13, 18 and 23, and returns the 16 bytes;
// anything else is InvalidArgument quoting the text. FormatUuid writes
// lower-case hex. Pure functions; thread-safe.
#pragma once

#include <string>
#include <string_view>

#include "common/status.h"

namespace floe {

// "f79c3e09-677c-4bbd-a479-3f349cb785e7" <-> 16 big-endian bytes.
Result<std::string> ParseUuid(std::string_view text);
std::string FormatUuid(std::string_view bytes16);

}  // namespace floe
