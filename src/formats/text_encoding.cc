#include "formats/text_encoding.h"

#include <cstdint>
#include <cstring>

#include "common/utf8.h"

namespace floe::formats {

size_t FindInvalidUtf8(std::string_view text) {
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  const size_t n = text.size();
  size_t i = 0;
  while (i < n) {
    if (i + 8 <= n) {
      uint64_t word;
      std::memcpy(&word, s + i, 8);
      if ((word & 0x8080808080808080ull) == 0) {
        i += 8;
        continue;
      }
    }
    if (s[i] < 0x80) {
      ++i;
      continue;
    }
    const size_t length = Utf8SequenceLength(text, i);
    if (length == 0) return i;
    i += length;
  }
  return std::string_view::npos;
}

void Latin1ToUtf8(std::string_view text, std::string* out) {
  out->reserve(out->size() + text.size());
  for (char ch : text) {
    const unsigned char c = static_cast<unsigned char>(ch);
    if (c < 0x80) {
      out->push_back(ch);
    } else {
      AppendUtf8(c, out);
    }
  }
}

}  // namespace floe::formats
