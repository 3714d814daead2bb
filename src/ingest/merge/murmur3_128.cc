// MurmurHash3 x64_128: see murmur3_128.h.
#include "ingest/merge/murmur3_128.h"

#include <cstring>

namespace floe::ingest {
namespace {

constexpr uint64_t kC1 = 0x87c37b91114253d5ULL;
constexpr uint64_t kC2 = 0x4cf5ad432745937fULL;

inline uint64_t RotateLeft(uint64_t x, int r) {
  return (x << r) | (x >> (64 - r));
}

inline uint64_t LoadLittleEndian64(const unsigned char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

inline uint64_t MixK1(uint64_t k1) {
  return RotateLeft(k1 * kC1, 31) * kC2;
}
inline uint64_t MixK2(uint64_t k2) {
  return RotateLeft(k2 * kC2, 33) * kC1;
}

}  // namespace

Hash128 Murmur3x64_128(std::string_view bytes, uint32_t seed) {
  const auto* data = reinterpret_cast<const unsigned char*>(bytes.data());
  const size_t length = bytes.size();
  const size_t blocks = length / 16;
  uint64_t h1 = seed;
  uint64_t h2 = seed;

  for (size_t i = 0; i < blocks; ++i) {
    uint64_t k1 = LoadLittleEndian64(data + 16 * i);
    uint64_t k2 = LoadLittleEndian64(data + 16 * i + 8);
    h1 ^= MixK1(k1);
    h1 = RotateLeft(h1, 27) + h2;
    h1 = h1 * 5 + 0x52dce729;
    h2 ^= MixK2(k2);
    h2 = RotateLeft(h2, 31) + h1;
    h2 = h2 * 5 + 0x38495ab5;
  }

  const unsigned char* tail = data + 16 * blocks;
  const size_t rest = length & 15;
  uint64_t k1 = 0;
  uint64_t k2 = 0;
  for (size_t i = rest; i > 8; --i) k2 = (k2 << 8) | tail[i - 1];
  for (size_t i = rest < 8 ? rest : 8; i > 0; --i) k1 = (k1 << 8) | tail[i - 1];
  if (rest > 8) h2 ^= MixK2(k2);
  if (rest > 0) h1 ^= MixK1(k1);

  h1 ^= length;
  h2 ^= length;
  h1 += h2;
  h2 += h1;
  h1 = MurmurMix64(h1);
  h2 = MurmurMix64(h2);
  h1 += h2;
  h2 += h1;
  return {h1, h2};
}

}  // namespace floe::ingest
