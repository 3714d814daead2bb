// ASCII case helpers for the keywords text formats recognise (true, NaN,
// month names). Contract: bytes outside A-Z are compared as they are.
#pragma once

#include <string_view>

namespace floe::formats {

inline char LowerAscii(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

// Whether `text` equals `lower_word` (given in lower case), ignoring case.
inline bool EqualsIgnoreCase(std::string_view text, std::string_view lower_word) {
  if (text.size() != lower_word.size()) return false;
  for (size_t i = 0; i < text.size(); ++i) {
    if (LowerAscii(text[i]) != lower_word[i]) return false;
  }
  return true;
}

}  // namespace floe::formats
