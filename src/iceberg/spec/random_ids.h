// Random identifiers for new tables and snapshots.
//
// Contract: bytes come from /dev/urandom (std::random_device when it cannot
// be read). Snapshot ids follow Java: the two halves of a random UUIDv4
// xor-ed and masked to a positive int64 (never 0). Thread-safe.
#pragma once

#include <array>
#include <cstdint>
#include <string>

namespace floe::iceberg {

// 16 random bytes with the version (4) and variant (10xx) bits set.
std::array<uint8_t, 16> RandomUuidBytes();
// Lower-case "xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx".
std::string NewUuidV4();
// Positive random snapshot id, from the UUID halves as Java derives it.
int64_t SnapshotIdFromUuid(const std::array<uint8_t, 16>& uuid);
int64_t NewSnapshotId();

}  // namespace floe::iceberg
