// Small text helpers every layer shares: ASCII case folding, hex digits and
// percent-decoding.
//
// Contract: case folding touches only the ASCII letters A-Z / a-z; every
// other byte (UTF-8 included) passes through unchanged, whatever the C
// locale. Hex encoding writes two digits per byte, high nibble first.
// Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace floe {

inline constexpr char kLowerHexDigits[] = "0123456789abcdef";
inline constexpr char kUpperHexDigits[] = "0123456789ABCDEF";

inline char AsciiLower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}
inline char AsciiUpper(char c) {
  return c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c;
}
std::string AsciiLower(std::string_view text);
bool EqualsIgnoreAsciiCase(std::string_view a, std::string_view b);

// The value of hex digit `c` (0-9, a-f, A-F), or -1 when `c` is not one.
inline int HexDigitValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

enum class HexCase : uint8_t { kLower, kUpper };

// Appends two hex digits per byte of `bytes` to `out`.
void AppendHex(std::string_view bytes, std::string* out, HexCase letters = HexCase::kLower);
std::string HexEncode(std::string_view bytes, HexCase letters = HexCase::kLower);

// "f79c3e09-677c-4bbd-a479-3f349cb785e7": the first 16 bytes of `bytes`
// (fewer when shorter) as lower-case hex in the 8-4-4-4-12 groups of a UUID.
void AppendUuid(std::string_view bytes, std::string* out);

// Percent-encodes every byte except the RFC 3986 unreserved characters
// (A-Z a-z 0-9 - . _ ~) and those in `also_keep`, with upper-case hex.
std::string PercentEncode(std::string_view text, std::string_view also_keep = "");
// Decodes %XX escapes (either case); with `plus_is_space`, '+' is a space
// (form encoding, S3's encoding-type=url). A '%' not followed by two hex
// digits makes the text malformed: nullopt, and *error_offset (when given)
// is the offset of that '%'.
std::optional<std::string> PercentDecode(std::string_view text, bool plus_is_space = false,
                                         size_t* error_offset = nullptr);

}  // namespace floe
