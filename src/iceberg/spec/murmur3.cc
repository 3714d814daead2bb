#include "iceberg/spec/murmur3.h"

#include <cmath>
#include <cstring>

#include "iceberg/spec/single_value.h"

namespace floe::iceberg {

namespace {

uint32_t RotateLeft(uint32_t x, int r) {
  return (x << r) | (x >> (32 - r));
}

uint32_t MixBlock(uint32_t k) {
  k *= 0xcc9e2d51u;
  k = RotateLeft(k, 15);
  return k * 0x1b873593u;
}

uint32_t FinalMix(uint32_t h) {
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  h ^= h >> 16;
  return h;
}

}  // namespace

int32_t Murmur3Hash32(std::string_view bytes, uint32_t seed) {
  const auto* data = reinterpret_cast<const unsigned char*>(bytes.data());
  const size_t length = bytes.size();
  const size_t blocks = length / 4;
  uint32_t h = seed;
  for (size_t i = 0; i < blocks; ++i) {
    const unsigned char* p = data + i * 4;
    uint32_t k = static_cast<uint32_t>(p[0]) | (static_cast<uint32_t>(p[1]) << 8) |
                 (static_cast<uint32_t>(p[2]) << 16) | (static_cast<uint32_t>(p[3]) << 24);
    h ^= MixBlock(k);
    h = RotateLeft(h, 13);
    h = h * 5 + 0xe6546b64u;
  }
  const unsigned char* tail = data + blocks * 4;
  uint32_t k = 0;
  switch (length & 3) {
    case 3: k ^= static_cast<uint32_t>(tail[2]) << 16; [[fallthrough]];
    case 2: k ^= static_cast<uint32_t>(tail[1]) << 8; [[fallthrough]];
    case 1:
      k ^= tail[0];
      h ^= MixBlock(k);
      break;
    default: break;
  }
  h ^= static_cast<uint32_t>(length);
  return static_cast<int32_t>(FinalMix(h));
}

int32_t HashLong(int64_t value) {
  char le[8];
  auto u = static_cast<uint64_t>(value);
  for (int i = 0; i < 8; ++i) le[i] = static_cast<char>((u >> (8 * i)) & 0xff);
  return Murmur3Hash32(std::string_view(le, 8));
}

Result<int32_t> HashLiteral(const Literal& value) {
  using K = Literal::Kind;
  switch (value.kind) {
    case K::kNull: return Status::InvalidArgument("null has no hash value");
    case K::kBoolean:
    case K::kInt:
    case K::kLong:
    case K::kDate:
    case K::kTime:
    case K::kTimestamp:
    case K::kTimestampTz: return HashLong(value.int_value);
    case K::kTimestampNs:
    case K::kTimestampTzNs: return HashLong(FloorDiv(value.int_value, 1000));
    case K::kFloat:
    case K::kDouble: {
      double d = value.double_value;
      int64_t bits;
      if (std::isnan(d)) {
        bits = 0x7ff8000000000000LL;
      } else {
        if (d == 0.0) d = 0.0;  // -0.0 hashes as 0.0
        std::memcpy(&bits, &d, sizeof bits);
      }
      return HashLong(bits);
    }
    case K::kDecimal: return Murmur3Hash32(DecimalToMinimalBytes(value.unscaled));
    case K::kString:
    case K::kUuid:
    case K::kFixed:
    case K::kBinary: return Murmur3Hash32(value.bytes);
  }
  return Status::Internal("unhandled literal kind");
}

}  // namespace floe::iceberg
