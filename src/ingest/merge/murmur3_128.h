// MurmurHash3 x64_128 (Austin Appleby's public-domain algorithm, written here
// from its description): the 128-bit hash behind hashed primary keys.
//
// Contract: Murmur3x64_128(bytes, seed) returns {h1, h2} exactly as the
// reference implementation's two 64-bit output words, so values can be
// checked against published test vectors. Not cryptographic: it spreads
// honest keys uniformly, it does not resist chosen collisions.
#pragma once

#include <cstdint>
#include <string_view>

namespace floe::ingest {

struct Hash128 {
  uint64_t h1 = 0;
  uint64_t h2 = 0;
};

Hash128 Murmur3x64_128(std::string_view bytes, uint32_t seed = 0);

// The 64-bit finalisation mix of MurmurHash3 (a bijection).
inline uint64_t MurmurMix64(uint64_t k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdULL;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53ULL;
  k ^= k >> 33;
  return k;
}

}  // namespace floe::ingest
