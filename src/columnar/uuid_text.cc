#include "columnar/uuid_text.h"

namespace floe {

namespace {

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

Status InvalidUuid(std::string_view text) {
  // Quote at most 64 bytes: the text may be an arbitrarily long bad value.
  return Status::InvalidArgument("invalid UUID '" + std::string(text.substr(0, 64)) +
                                 (text.size() > 64 ? "...'" : "'"));
}

}  // namespace

Result<std::string> ParseUuid(std::string_view text) {
  std::string out;
  if (text.size() != 36) return InvalidUuid(text);
  for (size_t i = 0; i < text.size();) {
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      if (text[i] != '-') return InvalidUuid(text);
      ++i;
      continue;
    }
    int hi = HexDigit(text[i]);
    int lo = i + 1 < text.size() ? HexDigit(text[i + 1]) : -1;
    if (hi < 0 || lo < 0) return InvalidUuid(text);
    out.push_back(static_cast<char>(hi * 16 + lo));
    i += 2;
  }
  if (out.size() != 16) return InvalidUuid(text);
  return out;
}

std::string FormatUuid(std::string_view bytes16) {
  static const char* kHex = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < bytes16.size() && i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out += '-';
    auto c = static_cast<unsigned char>(bytes16[i]);
    out += kHex[c >> 4];
    out += kHex[c & 15];
  }
  return out;
}

}  // namespace floe
