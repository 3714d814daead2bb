// Percent-encoding of URL paths, query values and form fields (RFC 3986).
//
// Contract: PercentEncode keeps exactly the unreserved characters A-Z a-z 0-9
// - . _ ~ (and '/' when asked) and writes every other byte as %XX with
// upper-case hex — the encoding SigV4 signs and the Iceberg REST protocol
// uses. PercentDecode is strict: a '%' not followed by two hex digits is
// InvalidArgument naming its offset; with plus_is_space, '+' decodes to a
// space (the form encoding S3 uses in listings and event notifications).
// Pure functions: safe from any thread.
#pragma once

#include <string>
#include <string_view>

#include "common/status.h"

namespace floe::http {

std::string PercentEncode(std::string_view text, bool keep_slash = false);
Result<std::string> PercentDecode(std::string_view text, bool plus_is_space = false);

}  // namespace floe::http
