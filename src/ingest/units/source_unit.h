// SourceUnit: one unit of work a discovery found — a landing-zone file, or a
// range of records of one stream partition — with what the pipeline needs to
// order, batch, record and trace it; and TableWatermark, what a discovery
// remembers about a table between runs.
//
// Contract: `uri` identifies the unit in the ledger and is unique per
// pipeline. For a file it is what the source's FileIO opens (a local path
// or an s3:// URI); for a stream range it is
// "<scheme>://<stream>/<partition>/<first>-<last>" (see StreamRangeUri).
// `order_key` sorts the units of one table into the order they must be
// applied in (CDA: schema fingerprint start time, then folder timestamp,
// then name; prefix sources: path; streams: partition, then position);
// discoveries build it from zero-padded fields so plain string order is the
// processing order.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace floe::ingest {

enum class UnitKind : uint8_t { kFile, kStreamRange };

// Records [first, last] (both inclusive) of one partition (Kafka) or shard
// (Kinesis) of a stream. Positions are decimal strings without leading
// zeros: Kafka offsets, Kinesis sequence numbers (up to 129 digits — real ones
// have 56, beyond 128 bits — never
// parsed into 64-bit integers); ComparePositions orders them.
struct StreamRange {
  std::string stream;     // topic or stream name
  std::string partition;  // partition number or shard id
  std::string first;
  std::string last;
};

struct SourceUnit {
  UnitKind kind = UnitKind::kFile;
  std::string uri;
  std::string table;  // the source table name; the target table is <namespace>.<table>
  int64_t size = 0;   // bytes (files) or payload bytes (stream ranges)
  int64_t mtime_ms = 0;
  std::string order_key;
  // CDA only: the schema fingerprint folder and the batch folder's epoch ms.
  std::string fingerprint;
  int64_t folder_timestamp_ms = 0;
  // Hive-style key=value folders between the source root and the file, outermost first.
  std::vector<std::pair<std::string, std::string>> partition_values;
  // kind == kStreamRange only.
  StreamRange range;
};

// What a discovery remembers about a table between runs (CDA reset detection).
struct TableWatermark {
  std::string table;
  int64_t last_successful_write_ms = 0;
  std::vector<std::string> fingerprints;
};

// <0, 0, >0 as position a is before, equal to or after b (decimal strings
// without leading zeros: the shorter is smaller, then by digits).
int ComparePositions(const std::string& a, const std::string& b);

// `value` in decimal, left-padded with zeros to `width` digits: the fields
// of an order_key (non-negative values).
std::string ZeroPadded(int64_t value, size_t width);

// "<scheme>://<stream>/<partition>/<first>-<last>", the ledger uri of a range.
std::string StreamRangeUri(const std::string& scheme, const StreamRange& range);

}  // namespace floe::ingest
