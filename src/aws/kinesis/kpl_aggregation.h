// De-aggregation of Kinesis Producer Library (KPL) aggregated records.
//
// Format (amazon-kinesis-producer's aggregation-format.md): the 4 magic bytes
// F3 89 9A C2, a protobuf AggregatedRecord, then the 16-byte MD5 of that
// protobuf. AggregatedRecord { repeated string partition_key_table = 1;
// repeated string explicit_hash_key_table = 2; repeated Record records = 3; }
// Record { required uint64 partition_key_index = 1; optional uint64
// explicit_hash_key_index = 2; required bytes data = 3; repeated Tag tags = 4; }
//
// Contract (the KCL's rules): a Kinesis record without the magic, too short to
// hold magic and digest, or whose MD5 does not match is a plain record and
// comes back whole as one user record. A record with magic and a matching
// MD5 whose protobuf is malformed (a bad varint or length, a missing
// required field, a table index out of range) is Corruption naming the
// offset, and so is a key-table entry longer than Kinesis allows (a
// partition key of more than kMaxKplPartitionKeyBytes, an explicit hash key
// of more than kMaxKplExplicitHashKeyBytes). User records keep the
// aggregate's order; their subsequence number is their index. Unknown fields
// are skipped; tags are not returned. Output is bounded: the records' data
// is at most the input's size (each is copied from its own bytes), and the
// keys, which records share by index, add at most the two limits per record.
// Pure function: thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace floe::aws::kinesis {

inline constexpr unsigned char kKplMagic[4] = {0xF3, 0x89, 0x9A, 0xC2};
// Kinesis's limits: 256 Unicode characters (up to 4 UTF-8 bytes each), and a
// decimal 128-bit hash key.
inline constexpr size_t kMaxKplPartitionKeyBytes = 1024;
inline constexpr size_t kMaxKplExplicitHashKeyBytes = 39;

struct UserRecord {
  std::string partition_key;
  std::string explicit_hash_key;  // "" when none was given
  std::string data;
  int64_t subsequence_number = 0;  // index within its aggregate; 0 for a plain record
  bool aggregated = false;         // came out of a KPL aggregate
};

// Whether `data` starts with the magic, holds the digest and its MD5 matches.
bool IsKplAggregate(std::string_view data);

// The user records of one Kinesis record whose own partition key is
// `partition_key` (the plain record keeps it).
Result<std::vector<UserRecord>> Deaggregate(std::string_view data, std::string_view partition_key,
                                            std::string_view explicit_hash_key = {});

// Builds an aggregate (the inverse, for tests and tools): the tables are
// built from the records' keys in first-seen order.
std::string AggregateForTesting(const std::vector<UserRecord>& records);

}  // namespace floe::aws::kinesis
