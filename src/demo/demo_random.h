// DemoRandom: the demo generator's own pseudo-random numbers.
//
// Contract: a pure function of its seed (splitmix64 seeding a xoshiro256**
// state), identical on every platform and run; nothing reads the clock or
// std::random_device. MixKey derives independent seeds from a tuple of
// integers, so a value can be re-derived from its coordinates (table, id,
// version, column) without replaying a stream. Not for cryptography.
#pragma once

#include <cstdint>
#include <initializer_list>

namespace floe::demo {

inline uint64_t SplitMix64(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

// A seed for the coordinates `parts`; different tuples give unrelated seeds.
inline uint64_t MixKey(std::initializer_list<uint64_t> parts) {
  uint64_t state = 0x6A09E667F3BCC909ULL;
  uint64_t out = 0;
  for (uint64_t part : parts) {
    state ^= part;
    out = SplitMix64(state);
    state = out;
  }
  return out;
}

class DemoRandom {
 public:
  explicit DemoRandom(uint64_t seed) {
    for (uint64_t& word : state_) word = SplitMix64(seed);
  }

  uint64_t Next() {
    const uint64_t result = Rotl(state_[1] * 5, 7) * 9;
    const uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = Rotl(state_[3], 45);
    return result;
  }
  // Uniform in [0, bound); 0 when bound is 0.
  uint64_t Below(uint64_t bound) {
    return static_cast<uint64_t>((static_cast<unsigned __int128>(Next()) * bound) >> 64);
  }
  // Uniform in [lo, hi]; lo when hi < lo.
  int64_t Between(int64_t lo, int64_t hi) {
    if (hi <= lo) return lo;
    return lo + static_cast<int64_t>(Below(static_cast<uint64_t>(hi - lo) + 1));
  }
  // Uniform in [0, 1).
  double Unit() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }
  bool Chance(double probability) { return Unit() < probability; }

 private:
  static uint64_t Rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t state_[4];
};

}  // namespace floe::demo
