// Column-name matching shared by Reconcile and ConformBatch, so both resolve
// a source column to the same table column.
//
// Contract: exact (case-sensitive) matches are taken first for every source
// name; then each remaining source name, in order, takes the single
// case-insensitive table name that no other source name took. A source name
// whose case-insensitive candidates are all taken, or that has several free
// candidates, is a clash. Two identical source names are an error.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace floe::ingest::internal {

struct NameMatch {
  enum class Kind { kExact, kCaseInsensitive, kUnmatched, kCaseClash };
  Kind kind = Kind::kUnmatched;
  int table_index = -1;  // kExact / kCaseInsensitive
  bool matched() const { return kind == Kind::kExact || kind == Kind::kCaseInsensitive; }
};

// One NameMatch per source name. InvalidArgument names a duplicated source name.
Result<std::vector<NameMatch>> MatchNames(const std::vector<std::string_view>& table_names,
                                          const std::vector<std::string_view>& source_names);

// "a.b.c" from path parts.
std::string JoinPath(const std::vector<std::string>& path);

}  // namespace floe::ingest::internal
