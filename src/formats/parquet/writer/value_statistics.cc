#include "formats/parquet/writer/value_statistics.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace floe::parquet {

namespace {

template <typename T>
T Load(const void* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

template <typename T>
std::string Encode(T v) {
  return std::string(reinterpret_cast<const char*>(&v), sizeof(T));
}

float HalfToFloat(uint16_t h) {
  const int sign = (h >> 15) & 1;
  const int exponent = (h >> 10) & 0x1F;
  const int mantissa = h & 0x3FF;
  float magnitude;
  if (exponent == 0) {
    magnitude = std::ldexp(static_cast<float>(mantissa), -24);
  } else if (exponent == 31) {
    magnitude = mantissa == 0 ? INFINITY : NAN;
  } else {
    magnitude = std::ldexp(static_cast<float>(mantissa + 1024), exponent - 25);
  }
  return sign ? -magnitude : magnitude;
}

// `Ordered` is the type whose `<` is the column's order (an unsigned type for
// unsigned columns); the stored bytes are those of `T`.
template <typename T, typename Ordered>
ValueStats IntegerStats(const uint8_t* p, int64_t count) {
  static_assert(sizeof(T) == sizeof(Ordered));
  ValueStats stats;
  if (count == 0) return stats;
  Ordered lo = Load<Ordered>(p), hi = lo;
  for (int64_t k = 1; k < count; ++k) {
    const Ordered v = Load<Ordered>(p + static_cast<size_t>(k) * sizeof(T));
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  stats.min = Encode(lo);
  stats.max = Encode(hi);
  return stats;
}

// The first 8 bytes of a value, zero-padded, as a big-endian number: when
// two values' prefixes differ, they order as their prefixes do (unsigned
// byte order, a proper prefix first).
inline uint64_t OrderPrefix(std::string_view v) {
  uint64_t x = 0;
  if (v.size() >= 8) {
    std::memcpy(&x, v.data(), 8);
    return __builtin_bswap64(x);
  }
  for (size_t i = 0; i < v.size(); ++i)
    x |= static_cast<uint64_t>(static_cast<uint8_t>(v[i])) << (56 - 8 * i);
  return x;
}

// Unsigned byte order of values at(0..count).
template <typename At>
ValueStats ByteStats(int64_t count, At at) {
  ValueStats stats;
  if (count == 0) return stats;
  std::string_view lo = at(0), hi = lo;
  uint64_t lo_prefix = OrderPrefix(lo), hi_prefix = lo_prefix;
  for (int64_t k = 1; k < count; ++k) {
    const std::string_view v = at(k);
    const uint64_t prefix = OrderPrefix(v);
    if (prefix < lo_prefix || (prefix == lo_prefix && v.compare(lo) < 0)) {
      lo = v;
      lo_prefix = prefix;
    }
    if (prefix > hi_prefix || (prefix == hi_prefix && hi.compare(v) < 0)) {
      hi = v;
      hi_prefix = prefix;
    }
  }
  stats.min = std::string(lo);
  stats.max = std::string(hi);
  return stats;
}

template <typename T>
ValueStats FloatStats(const uint8_t* p, int64_t count) {
  ValueStats stats;
  bool any = false;
  T lo = 0, hi = 0;
  for (int64_t k = 0; k < count; ++k) {
    T v = Load<T>(p + static_cast<size_t>(k) * sizeof(T));
    if (std::isnan(v)) {
      ++stats.nan_count;
      continue;
    }
    if (!any) {
      lo = hi = v;
      any = true;
      continue;
    }
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  if (!any) return stats;
  if (lo == 0) lo = -static_cast<T>(0);
  if (hi == 0) hi = static_cast<T>(0);
  stats.min = Encode(lo);
  stats.max = Encode(hi);
  return stats;
}

ValueStats Float16Stats(const uint8_t* p, int64_t count) {
  ValueStats stats;
  bool any = false;
  float lo = 0, hi = 0;
  uint16_t lo_bits = 0, hi_bits = 0;
  for (int64_t k = 0; k < count; ++k) {
    uint16_t bits = Load<uint16_t>(p + static_cast<size_t>(k) * 2);
    float v = HalfToFloat(bits);
    if (std::isnan(v)) {
      ++stats.nan_count;
      continue;
    }
    if (!any || v < lo) lo = v, lo_bits = bits;
    if (!any || v > hi) hi = v, hi_bits = bits;
    any = true;
  }
  if (!any) return stats;
  if (lo == 0) lo_bits = 0x8000;
  if (hi == 0) hi_bits = 0x0000;
  stats.min = Encode(lo_bits);
  stats.max = Encode(hi_bits);
  return stats;
}

int CompareDecimalBytes(std::string_view a, std::string_view b) {
  // Same width in one column; a longer value is sign-extended conceptually.
  const bool a_neg = !a.empty() && (static_cast<uint8_t>(a[0]) & 0x80);
  const bool b_neg = !b.empty() && (static_cast<uint8_t>(b[0]) & 0x80);
  if (a_neg != b_neg) return a_neg ? -1 : 1;
  if (a.size() != b.size()) {  // not produced by this writer; compare by extended width
    const size_t width = std::max(a.size(), b.size());
    const char fill_a = a_neg ? '\xFF' : '\0', fill_b = b_neg ? '\xFF' : '\0';
    std::string ea(width - a.size(), fill_a), eb(width - b.size(), fill_b);
    ea.append(a);
    eb.append(b);
    return CompareDecimalBytes(ea, eb);
  }
  int c = std::memcmp(a.data(), b.data(), a.size());
  return c < 0 ? -1 : (c > 0 ? 1 : 0);
}

bool BytesLess(std::string_view a, std::string_view b) {
  // std::string_view compares chars via char_traits<char>, which is unsigned-byte order.
  return a.compare(b) < 0;
}

}  // namespace

ValueStats ComputeValueStats(const WriteLeaf& leaf, const LeafValues& values, int64_t begin, int64_t end) {
  const int64_t count = end - begin;
  const int width = PhysicalWidth(leaf);
  const uint8_t* p = values.fixed.data() + static_cast<size_t>(begin) * static_cast<size_t>(width);
  switch (leaf.order) {
    case StatsOrder::kNone: return {};
    case StatsOrder::kBoolean: return IntegerStats<uint8_t, uint8_t>(p, count);
    case StatsOrder::kSigned32: return IntegerStats<int32_t, int32_t>(p, count);
    case StatsOrder::kUnsigned32: return IntegerStats<int32_t, uint32_t>(p, count);
    case StatsOrder::kSigned64: return IntegerStats<int64_t, int64_t>(p, count);
    case StatsOrder::kUnsigned64: return IntegerStats<int64_t, uint64_t>(p, count);
    case StatsOrder::kFloat32: return FloatStats<float>(p, count);
    case StatsOrder::kFloat64: return FloatStats<double>(p, count);
    case StatsOrder::kFloat16: return Float16Stats(p, count);
    case StatsOrder::kBytes:
    case StatsOrder::kDecimalBytes: {
      auto at = [&](int64_t k) -> std::string_view {
        if (width == 0) return values.ByteArrayAt(begin + k);
        return std::string_view(reinterpret_cast<const char*>(p) + static_cast<size_t>(k) * width,
                                static_cast<size_t>(width));
      };
      if (leaf.order == StatsOrder::kBytes) return ByteStats(count, at);
      ValueStats stats;
      if (count == 0) return stats;
      std::string_view lo = at(0), hi = lo;
      for (int64_t k = 1; k < count; ++k) {
        std::string_view v = at(k);
        if (CompareDecimalBytes(v, lo) < 0) lo = v;
        if (CompareDecimalBytes(hi, v) < 0) hi = v;
      }
      stats.min = std::string(lo);
      stats.max = std::string(hi);
      return stats;
    }
  }
  return {};
}

bool EncodedLess(StatsOrder order, std::string_view a, std::string_view b) {
  switch (order) {
    case StatsOrder::kNone: return false;
    case StatsOrder::kBoolean: return a < b;
    case StatsOrder::kSigned32: return Load<int32_t>(a.data()) < Load<int32_t>(b.data());
    case StatsOrder::kUnsigned32: return Load<uint32_t>(a.data()) < Load<uint32_t>(b.data());
    case StatsOrder::kSigned64: return Load<int64_t>(a.data()) < Load<int64_t>(b.data());
    case StatsOrder::kUnsigned64: return Load<uint64_t>(a.data()) < Load<uint64_t>(b.data());
    case StatsOrder::kFloat32: return Load<float>(a.data()) < Load<float>(b.data());
    case StatsOrder::kFloat64: return Load<double>(a.data()) < Load<double>(b.data());
    case StatsOrder::kFloat16:
      return HalfToFloat(Load<uint16_t>(a.data())) < HalfToFloat(Load<uint16_t>(b.data()));
    case StatsOrder::kBytes: return BytesLess(a, b);
    case StatsOrder::kDecimalBytes: return CompareDecimalBytes(a, b) < 0;
  }
  return false;
}

void MergeValueStats(StatsOrder order, const ValueStats& part, ValueStats* total) {
  total->nan_count += part.nan_count;
  if (part.min && (!total->min || EncodedLess(order, *part.min, *total->min))) total->min = part.min;
  if (part.max && (!total->max || EncodedLess(order, *total->max, *part.max))) total->max = part.max;
}

}  // namespace floe::parquet
