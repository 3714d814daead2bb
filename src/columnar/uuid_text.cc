#include "columnar/uuid_text.h"

#include "common/strings.h"

namespace floe {

namespace {

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
    int hi = HexDigitValue(text[i]);
    int lo = i + 1 < text.size() ? HexDigitValue(text[i + 1]) : -1;
    if (hi < 0 || lo < 0) return InvalidUuid(text);
    out.push_back(static_cast<char>(hi * 16 + lo));
    i += 2;
  }
  if (out.size() != 16) return InvalidUuid(text);
  return out;
}

std::string FormatUuid(std::string_view bytes16) {
  std::string out;
  AppendUuid(bytes16, &out);
  return out;
}

}  // namespace floe
