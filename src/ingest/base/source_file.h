// SourceFile: one landing-zone file that a source discovered, with what the
// pipeline needs to order, batch and trace it.
//
// Contract: `uri` is what the source's FileIO opens (a local path or an
// s3:// URI) and identifies the file in the ledger. `order_key` sorts the
// files of one table into the order they must be applied in (CDA: schema
// fingerprint start time, then folder timestamp, then name; prefix sources:
// path); sources build it from zero-padded fields so plain string order is
// the processing order.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace floe::ingest {

struct SourceFile {
  std::string uri;
  std::string table;  // the source table name; the target table is <namespace>.<table>
  int64_t size = 0;
  int64_t mtime_ms = 0;
  std::string order_key;
  // CDA only: the schema fingerprint folder and the batch folder's epoch ms.
  std::string fingerprint;
  int64_t folder_timestamp_ms = 0;
  // Hive-style key=value folders between the source root and the file, outermost first.
  std::vector<std::pair<std::string, std::string>> partition_values;
};

}  // namespace floe::ingest
