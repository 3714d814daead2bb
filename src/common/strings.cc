#include "common/strings.h"

namespace floe {

std::string AsciiLower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = AsciiLower(c);
  return out;
}

bool EqualsIgnoreAsciiCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (AsciiLower(a[i]) != AsciiLower(b[i])) return false;
  }
  return true;
}

void AppendHex(std::string_view bytes, std::string* out, HexCase letters) {
  const char* digits = letters == HexCase::kUpper ? kUpperHexDigits : kLowerHexDigits;
  out->reserve(out->size() + 2 * bytes.size());
  for (char ch : bytes) {
    const auto b = static_cast<unsigned char>(ch);
    out->push_back(digits[b >> 4]);
    out->push_back(digits[b & 15]);
  }
}

std::string HexEncode(std::string_view bytes, HexCase letters) {
  std::string out;
  AppendHex(bytes, &out, letters);
  return out;
}

void AppendUuid(std::string_view bytes, std::string* out) {
  for (size_t i = 0; i < bytes.size() && i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out->push_back('-');
    const auto b = static_cast<unsigned char>(bytes[i]);
    out->push_back(kLowerHexDigits[b >> 4]);
    out->push_back(kLowerHexDigits[b & 15]);
  }
}

std::string PercentEncode(std::string_view text, std::string_view also_keep) {
  std::string out;
  out.reserve(text.size());
  for (char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    const bool unreserved = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                            c == '-' || c == '.' || c == '_' || c == '~';
    if (unreserved || also_keep.find(ch) != std::string_view::npos) {
      out.push_back(ch);
    } else {
      out.push_back('%');
      out.push_back(kUpperHexDigits[c >> 4]);
      out.push_back(kUpperHexDigits[c & 15]);
    }
  }
  return out;
}

std::optional<std::string> PercentDecode(std::string_view text, bool plus_is_space, size_t* error_offset) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '+' && plus_is_space) {
      out.push_back(' ');
    } else if (text[i] != '%') {
      out.push_back(text[i]);
    } else {
      const int high = i + 2 < text.size() ? HexDigitValue(text[i + 1]) : -1;
      const int low = i + 2 < text.size() ? HexDigitValue(text[i + 2]) : -1;
      if (high < 0 || low < 0) {
        if (error_offset) *error_offset = i;
        return std::nullopt;
      }
      out.push_back(static_cast<char>(high * 16 + low));
      i += 2;
    }
  }
  return out;
}

}  // namespace floe
