// The common shape of a change record in JSON lines: one object whose
// members are all scalars, with no escape sequence in any key or string.
// JsonDocumentDecoder reads such a document in one pass over its bytes and
// gives everything else (nested values, escapes, anything odd) to simdjson.
//
// Contract: ScanFlatJsonObject returns true only for a document that is one
// RFC 8259 JSON object (whitespace around tokens allowed) whose member keys
// and string values contain no backslash and no control character, whose
// values are strings, numbers (the RFC grammar), true, false or null, and
// whose bytes are valid UTF-8; then every member was passed to
// `on_member(const JsonFlatMember&)` in order (duplicates included).
// Anything else returns false: the caller parses the document with
// simdjson, which decides whether it is valid. So a true result never
// accepts invalid JSON, and the caller's decoding of both paths must agree
// (the decoder routes both through one scalar conversion; the fuzz target
// compares them). Members are not collected: each goes to `on_member` as
// soon as it is scanned (the decoder converts it into its column at once),
// so a false result may come after some members were passed, and the
// caller undoes what it did with them. ScanFlatJsonLine is the same for
// the line that starts a JSON-lines text: '\n' ends the object's line, so
// it is not white space there; it returns where that line ends (the
// '\n', or the text's end), or npos for a line that is not one flat object
// (the caller then finds the line's end itself). Header-only so that
// `on_member` is inlined into the scan loop. Pure apart from `on_member`.
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

#include "common/utf8.h"
#include "formats/ascii_text.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace floe::json {

enum class JsonScalarKind : uint8_t { kString, kNumber, kTrue, kFalse, kNull };

struct JsonFlatMember {
  std::string_view key;  // without quotes
  int32_t key_index;     // the index of the key in `expected`, or -1
  JsonScalarKind kind;
  std::string_view text;  // a string's content (no quotes), or the literal's text
  const char* raw;        // where the value's JSON text starts (a string's opening quote)
  // A number without exponent of at most 18 digits (both sides of the point
  // together), read while scanning: `digits` is all its digits as one signed
  // integer ("-12.50" -> -1250) and `fraction_digits` how many follow the point.
  bool short_number;
  int8_t fraction_digits;
  int64_t digits;
};

// The scanner's pieces (not an API).
namespace flat_scan {

// text[start, start + length), both within text (substr's range check and
// its throw kept it from being inlined).
inline std::string_view Slice(std::string_view text, size_t start, size_t length) {
  return std::string_view(text.data() + start, length);
}

// What the scan reads: one document, or the first line of JSON lines.
enum class Extent : uint8_t { kDocument, kLine };

// JSON's white space; in a line, without the '\n' that ends it.
template <Extent kExtent>
inline bool IsSpace(char c) {
  return c == ' ' || c == '\t' || (kExtent == Extent::kDocument && c == '\n') || c == '\r';
}

template <Extent kExtent>
inline size_t SkipSpace(std::string_view text, size_t i) {
  while (i < text.size() && IsSpace<kExtent>(text[i])) ++i;
  return i;
}

// The first byte at or after `i` that is '"', '\\', a control character or
// not ASCII; text.size() if none.
[[gnu::always_inline]] inline size_t FindStringStop(std::string_view text, size_t i) {
  const char* p = text.data();
  const size_t n = text.size();
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\'), space = _mm_set1_epi8(0x20);
  for (; i + 16 <= n; i += 16) {
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
    // Signed compare: bytes 0x80-0xFF are negative, so "< 0x20" also finds them.
    const __m128i stops = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, quote), _mm_cmpeq_epi8(x, backslash)),
                                       _mm_cmplt_epi8(x, space));
    const int mask = _mm_movemask_epi8(stops);
    if (mask != 0) return i + static_cast<size_t>(__builtin_ctz(static_cast<unsigned>(mask)));
  }
#endif
  for (; i < n; ++i) {
    const unsigned char c = static_cast<unsigned char>(p[i]);
    if (c == '"' || c == '\\' || c < 0x20 || c >= 0x80) return i;
  }
  return n;
}

// A string starting after its opening quote at `i`: sets *end to the closing
// quote. False for escapes, control characters, bad UTF-8 or no end.
[[gnu::always_inline]] inline bool ScanString(std::string_view text, size_t i, size_t* end) {
  const auto* bytes = reinterpret_cast<const unsigned char*>(text.data());
  while (true) {
    i = FindStringStop(text, i);
    if (i >= text.size()) return false;
    const unsigned char c = bytes[i];
    if (c == '"') {
      *end = i;
      return true;
    }
    if (c < 0x80) return false;  // backslash or control character
    const size_t length = Utf8SequenceLength(text, i);
    if (length == 0) return false;
    i += length;
  }
}

inline bool IsDigit(char c) {
  return static_cast<unsigned char>(c - '0') < 10;
}

// Reads the run of ASCII digits at p[i] into *value (appended to what it
// holds; wraps past 19 digits); returns where the run ends. Eight digits at
// a time where eight bytes remain.
[[gnu::always_inline]] inline size_t ReadDigits(const char* p, size_t n, size_t i, uint64_t* value) {
  while (i + 8 <= n) {
    const uint64_t eight = formats::LoadEightBytes(p + i);
    if (!formats::AllAsciiDigits(eight)) break;
    *value = *value * 100000000ull + formats::EightDigitsValue(eight);
    i += 8;
  }
  while (i < n && IsDigit(p[i])) *value = *value * 10 + static_cast<uint64_t>(p[i++] - '0');
  return i;
}

// The end of the RFC 8259 number at text[i], or npos when the bytes there
// are not one (the grammar of json_text.h's IsJsonNumber, in one pass). A
// number without exponent of at most 18 digits is also read into *digits
// and *fraction_digits (JsonFlatMember). Runs of digits are taken eight at a
// time where eight bytes remain.
[[gnu::always_inline]] inline size_t ScanNumber(std::string_view text, size_t i, bool* short_number,
                                                int8_t* fraction_digits, int64_t* digits) {
  const size_t n = text.size();
  const char* p = text.data();
  *short_number = false;
  const bool negative = i < n && p[i] == '-';
  if (negative) ++i;
  if (i >= n) return std::string_view::npos;
  const size_t digits_start = i;
  uint64_t value = 0;  // wraps past 19 digits; then it is not used
  if (p[i] == '0') {
    ++i;
  } else if (IsDigit(p[i])) {
    i = ReadDigits(p, n, i, &value);
  } else {
    return std::string_view::npos;
  }
  size_t count = i - digits_start;
  size_t fraction = 0;
  if (i < n && p[i] == '.') {
    if (++i >= n || !IsDigit(p[i])) return std::string_view::npos;
    const size_t fraction_start = i;
    i = ReadDigits(p, n, i, &value);
    fraction = i - fraction_start;
    count += fraction;
  }
  if (i < n && (p[i] == 'e' || p[i] == 'E')) {
    ++i;
    if (i < n && (p[i] == '+' || p[i] == '-')) ++i;
    if (i >= n || !IsDigit(p[i])) return std::string_view::npos;
    while (i < n && IsDigit(p[i])) ++i;
    return i;
  }
  if (count <= 18) {
    *short_number = true;
    *fraction_digits = static_cast<int8_t>(fraction);
    *digits = negative ? -static_cast<int64_t>(value) : static_cast<int64_t>(value);
  }
  return i;
}

// Whether text[i, i + word.size()) is `word` (a short literal or key),
// compared eight bytes at a time without a call; the last eight (or four)
// bytes are compared as one overlapping word instead of byte by byte.
[[gnu::always_inline]] inline bool BytesAre(std::string_view text, size_t i, std::string_view word) {
  const size_t n = word.size();
  if (text.size() - i < n) return false;
  const char* a = text.data() + i;
  const char* b = word.data();
  if (n >= 8) {
    size_t k = 0;
    for (; k + 8 <= n; k += 8) {
      if (formats::LoadEightBytes(a + k) != formats::LoadEightBytes(b + k)) return false;
    }
    return k == n || formats::LoadEightBytes(a + n - 8) == formats::LoadEightBytes(b + n - 8);
  }
  if (n >= 4) {
    uint32_t x, y, z, w;
    std::memcpy(&x, a, 4);
    std::memcpy(&y, b, 4);
    std::memcpy(&z, a + n - 4, 4);
    std::memcpy(&w, b + n - 4, 4);
    return x == y && z == w;
  }
  for (size_t k = 0; k < n; ++k) {
    if (a[k] != b[k]) return false;
  }
  return true;
}

// The scan of both extents: the end of the object's document or line, or
// npos. Its pieces are always inlined: with two extents the compiler's
// budget would otherwise call them per member.
template <Extent kExtent, typename OnMember>
size_t ScanFlatObject(std::string_view document, const std::vector<std::string>* expected,
                      OnMember&& on_member) {
  constexpr size_t kNotFlat = std::string_view::npos;
  size_t i = SkipSpace<kExtent>(document, 0);
  const size_t n = document.size();
  // After the closing brace: only white space to the end of the extent.
  auto end_after = [&](size_t close) {
    const size_t end = SkipSpace<kExtent>(document, close + 1);
    if constexpr (kExtent == Extent::kDocument) {
      return end == n ? n : kNotFlat;
    } else {
      return end == n || document[end] == '\n' ? end : kNotFlat;
    }
  };
  if (i >= n || document[i] != '{') return kNotFlat;
  i = SkipSpace<kExtent>(document, i + 1);
  if (i < n && document[i] == '}') return end_after(i);
  size_t next_key = 0;  // the expected key after the previous member's
  const size_t known = expected ? expected->size() : 0;
  while (true) {
    if (i >= n || document[i] != '"') return kNotFlat;
    JsonFlatMember member;
    member.key_index = -1;
    member.short_number = false;
    member.fraction_digits = 0;
    member.digits = 0;
    size_t key_end;
    if (next_key < known && BytesAre(document, i + 1, (*expected)[next_key]) &&
        i + 1 + (*expected)[next_key].size() < n && document[i + 1 + (*expected)[next_key].size()] == '"') {
      key_end = i + 1 + (*expected)[next_key].size();
      member.key_index = static_cast<int32_t>(next_key);
    } else if (!ScanString(document, i + 1, &key_end)) {
      return kNotFlat;
    }
    member.key = Slice(document, i + 1, key_end - i - 1);
    if (member.key_index < 0) {
      for (size_t k = 0; k < known; ++k) {
        if ((*expected)[k] == member.key) {
          member.key_index = static_cast<int32_t>(k);
          break;
        }
      }
    }
    next_key = member.key_index >= 0 ? static_cast<size_t>(member.key_index) + 1 : known;
    i = key_end + 1;
    if (i < n && document[i] != ':') i = SkipSpace<kExtent>(document, i);
    if (i >= n || document[i] != ':') return kNotFlat;
    ++i;
    if (i < n && IsSpace<kExtent>(document[i])) i = SkipSpace<kExtent>(document, i);
    if (i >= n) return kNotFlat;
    member.raw = document.data() + i;
    const char c = document[i];
    if (c == '"') {
      size_t end;
      if (!ScanString(document, i + 1, &end)) return kNotFlat;
      member.kind = JsonScalarKind::kString;
      member.text = Slice(document, i + 1, end - i - 1);
      i = end + 1;
    } else if (c == '-' || IsDigit(c)) {
      const size_t end =
          ScanNumber(document, i, &member.short_number, &member.fraction_digits, &member.digits);
      if (end == std::string_view::npos) return kNotFlat;
      member.kind = JsonScalarKind::kNumber;
      member.text = Slice(document, i, end - i);
      i = end;
    } else if (c == 't' && BytesAre(document, i, "true")) {
      member.kind = JsonScalarKind::kTrue;
      member.text = Slice(document, i, 4);
      i += 4;
    } else if (c == 'f' && BytesAre(document, i, "false")) {
      member.kind = JsonScalarKind::kFalse;
      member.text = Slice(document, i, 5);
      i += 5;
    } else if (c == 'n' && BytesAre(document, i, "null")) {
      member.kind = JsonScalarKind::kNull;
      member.text = Slice(document, i, 4);
      i += 4;
    } else {
      return kNotFlat;  // nested values and anything else go to simdjson
    }
    on_member(static_cast<const JsonFlatMember&>(member));
    if (i < n && IsSpace<kExtent>(document[i])) i = SkipSpace<kExtent>(document, i);
    if (i >= n) return kNotFlat;
    if (document[i] == ',') {
      ++i;
      if (i < n && IsSpace<kExtent>(document[i])) i = SkipSpace<kExtent>(document, i);
      continue;
    }
    if (document[i] != '}') return kNotFlat;
    return end_after(i);
  }
}

}  // namespace flat_scan

// `expected` (optional) lists the keys documents usually have, in their
// usual order: a key equal to the one after the previous member's is matched
// without being scanned (its bytes are compared with the name, which must be
// free of quotes, backslashes and control characters, and valid UTF-8), and
// every member's key_index says which expected key it is.

template <typename OnMember>
bool ScanFlatJsonObject(std::string_view document, const std::vector<std::string>* expected,
                        OnMember&& on_member) {
  return flat_scan::ScanFlatObject<flat_scan::Extent::kDocument>(document, expected, on_member) !=
         std::string_view::npos;
}

template <typename OnMember>
size_t ScanFlatJsonLine(std::string_view text, const std::vector<std::string>* expected,
                        OnMember&& on_member) {
  return flat_scan::ScanFlatObject<flat_scan::Extent::kLine>(text, expected, on_member);
}

}  // namespace floe::json
