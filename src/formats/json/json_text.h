// Small facts about JSON text that the decoder and the shape inference share.
//
// Contract: pure functions over bytes the caller holds; no allocation.
#pragma once

#include <cstddef>
#include <string_view>

namespace floe::json {

// Strips the whitespace simdjson leaves after a raw token.
std::string_view TrimJsonToken(std::string_view token);

// RFC 8259 number grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
bool IsJsonNumber(std::string_view text);

// The length of the JSON value starting at text[0] (an object or array up to
// its matching bracket, a string up to its closing quote, a scalar up to the
// next whitespace or structural character), scanning no further than text.size(); the whole size
// when it does not end. The value was validated by the caller.
size_t JsonValueExtent(std::string_view text);

}  // namespace floe::json
