// Character encodings of text units: UTF-8 validation and Latin-1 -> UTF-8.
//
// Contract: FindInvalidUtf8 returns the offset of the first byte that does
// not start a well-formed UTF-8 sequence (overlong forms, surrogates and
// code points past U+10FFFF are ill-formed), or npos; ASCII runs are checked
// eight bytes at a time. Latin1ToUtf8 maps each byte to its code point
// (ISO-8859-1), appending to *out. Pure functions.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace floe::formats {

size_t FindInvalidUtf8(std::string_view text);
inline bool IsValidUtf8(std::string_view text) {
  return FindInvalidUtf8(text) == std::string_view::npos;
}
void Latin1ToUtf8(std::string_view text, std::string* out);

}  // namespace floe::formats
