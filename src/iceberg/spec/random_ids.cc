#include "iceberg/spec/random_ids.h"

#include <cstdio>
#include <random>
#include <string_view>

#include "iceberg/spec/literal.h"

namespace floe::iceberg {

namespace {

void FillRandom(uint8_t* out, size_t size) {
  size_t got = 0;
  if (std::FILE* f = std::fopen("/dev/urandom", "rb")) {
    got = std::fread(out, 1, size, f);
    std::fclose(f);
  }
  if (got < size) {
    std::random_device device;
    for (size_t i = got; i < size; ++i) out[i] = static_cast<uint8_t>(device());
  }
}

}  // namespace

std::array<uint8_t, 16> RandomUuidBytes() {
  std::array<uint8_t, 16> bytes{};
  FillRandom(bytes.data(), bytes.size());
  bytes[6] = static_cast<uint8_t>((bytes[6] & 0x0f) | 0x40);
  bytes[8] = static_cast<uint8_t>((bytes[8] & 0x3f) | 0x80);
  return bytes;
}

std::string NewUuidV4() {
  auto bytes = RandomUuidBytes();
  return FormatUuid(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}

int64_t SnapshotIdFromUuid(const std::array<uint8_t, 16>& uuid) {
  uint64_t most = 0;
  uint64_t least = 0;
  for (int i = 0; i < 8; ++i) {
    most = (most << 8) | uuid[static_cast<size_t>(i)];
    least = (least << 8) | uuid[static_cast<size_t>(i + 8)];
  }
  return static_cast<int64_t>((most ^ least) & 0x7fffffffffffffffULL);
}

int64_t NewSnapshotId() {
  while (true) {
    int64_t id = SnapshotIdFromUuid(RandomUuidBytes());
    if (id != 0) return id;
  }
}

}  // namespace floe::iceberg
