#include "ingest/schema/name_match.h"

#include <cctype>
#include <unordered_map>

#include "common/strings.h"

namespace floe::ingest::internal {

Result<std::vector<NameMatch>> MatchNames(const std::vector<std::string_view>& table_names,
                                          const std::vector<std::string_view>& source_names) {
  std::unordered_map<std::string_view, int> table_index;
  for (size_t t = 0; t < table_names.size(); ++t) table_index.emplace(table_names[t], static_cast<int>(t));

  std::vector<NameMatch> matches(source_names.size());
  std::vector<bool> taken(table_names.size(), false);
  std::unordered_map<std::string_view, size_t> seen;
  for (size_t s = 0; s < source_names.size(); ++s) {
    if (!seen.emplace(source_names[s], s).second) {
      return Status::InvalidArgument("two columns are named '" + std::string(source_names[s]) + "'");
    }
    auto it = table_index.find(source_names[s]);
    if (it != table_index.end()) {
      matches[s] = {NameMatch::Kind::kExact, it->second};
      taken[static_cast<size_t>(it->second)] = true;
    }
  }
  for (size_t s = 0; s < source_names.size(); ++s) {
    if (matches[s].kind == NameMatch::Kind::kExact) continue;
    int candidate = -1;
    int free_candidates = 0;
    bool any_candidate = false;
    for (size_t t = 0; t < table_names.size(); ++t) {
      if (!EqualsIgnoreAsciiCase(table_names[t], source_names[s])) continue;
      any_candidate = true;
      if (!taken[t]) {
        ++free_candidates;
        candidate = static_cast<int>(t);
      }
    }
    if (free_candidates == 1) {
      matches[s] = {NameMatch::Kind::kCaseInsensitive, candidate};
      taken[static_cast<size_t>(candidate)] = true;
    } else if (any_candidate) {
      matches[s] = {NameMatch::Kind::kCaseClash, -1};
    }
  }
  return matches;
}

std::string JoinPath(const std::vector<std::string>& path) {
  std::string out;
  for (const std::string& part : path) {
    if (!out.empty()) out.push_back('.');
    out += part;
  }
  return out;
}

}  // namespace floe::ingest::internal
