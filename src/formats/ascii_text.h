// ASCII helpers the text formats share: case for the keywords they
// recognise (true, NaN, month names), and digits eight at a time for the
// scans that read numbers and timestamps.
// Contract: bytes outside A-Z are compared as they are; pure functions.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
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

// The eight bytes at `p`, little-endian (the digit tricks below assume the
// first byte is the lowest).
inline uint64_t LoadEightBytes(const char* p) {
  uint64_t x;
  std::memcpy(&x, p, 8);
  if constexpr (std::endian::native == std::endian::big) x = __builtin_bswap64(x);
  return x;
}

// Whether all eight bytes of `x` are ASCII digits: each byte's high nibble
// is 3, and adding 6 does not carry its low nibble past 9.
inline bool AllAsciiDigits(uint64_t x) {
  return ((x & 0xF0F0F0F0F0F0F0F0ull) | (((x + 0x0606060606060606ull) & 0xF0F0F0F0F0F0F0F0ull) >> 4)) ==
         0x3333333333333333ull;
}

// The value of eight ASCII digits (the first byte most significant), by
// pairing neighbours three times: digits -> 2-digit -> 4-digit -> 8-digit.
inline uint64_t EightDigitsValue(uint64_t x) {
  x -= 0x3030303030303030ull;
  x = (x * 10 + (x >> 8)) & 0x00FF00FF00FF00FFull;
  x = (x * 100 + (x >> 16)) & 0x0000FFFF0000FFFFull;
  return (x * 10000 + (x >> 32)) & 0xFFFFFFFFull;
}

}  // namespace floe::formats
