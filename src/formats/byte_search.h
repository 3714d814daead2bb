// Finding the next interesting byte in text: the inner loop of the CSV
// scanner and tokenizer, 16 bytes at a time where SSE2 exists (every x86-64
// CPU), a byte at a time elsewhere.
//
// Contract: FindAnyOf returns the index of the first byte of text equal to
// one of a, b, c, d (pass one of them again to look for fewer), or
// text.size() when there is none. Pure function.
#pragma once

#include <cstddef>
#include <string_view>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace floe::formats {

inline size_t FindAnyOf(std::string_view text, char a, char b, char c, char d) {
  const char* p = text.data();
  const size_t n = text.size();
  size_t i = 0;
#if defined(__SSE2__)
  const __m128i va = _mm_set1_epi8(a), vb = _mm_set1_epi8(b), vc = _mm_set1_epi8(c), vd = _mm_set1_epi8(d);
  for (; i + 16 <= n; i += 16) {
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
    const __m128i hits = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, va), _mm_cmpeq_epi8(x, vb)),
                                      _mm_or_si128(_mm_cmpeq_epi8(x, vc), _mm_cmpeq_epi8(x, vd)));
    const int mask = _mm_movemask_epi8(hits);
    if (mask != 0) return i + static_cast<size_t>(__builtin_ctz(static_cast<unsigned>(mask)));
  }
#endif
  for (; i < n; ++i) {
    const char ch = p[i];
    if (ch == a || ch == b || ch == c || ch == d) return i;
  }
  return n;
}

}  // namespace floe::formats
