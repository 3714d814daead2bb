// UpdateProperties: sets and removes table properties in one commit.
//
// Contract: removals apply after updates; a key both set and removed is
// InvalidArgument. Property changes never conflict: the commit only requires
// the same table (uuid) and is retried on the reloaded table.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "common/status.h"

namespace floe::iceberg {

class Table;

class UpdateProperties {
 public:
  explicit UpdateProperties(Table& table) : table_(table) {}

  UpdateProperties& Set(const std::string& key, const std::string& value) {
    updates_[key] = value;
    return *this;
  }
  UpdateProperties& Remove(const std::string& key) {
    removals_.push_back(key);
    return *this;
  }
  // Commits; returns the table's properties afterwards.
  Result<std::map<std::string, std::string>> Commit();

 private:
  Table& table_;
  std::map<std::string, std::string> updates_;
  std::vector<std::string> removals_;
};

}  // namespace floe::iceberg
