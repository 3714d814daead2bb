#include "aws/kinesis/shard_lineage.h"

#include <map>

namespace floe::aws::kinesis {

std::vector<std::string> ListedParents(const Shard& shard, const std::set<std::string>& listed) {
  std::vector<std::string> parents;
  for (const std::string* parent : {&shard.parent_shard_id, &shard.adjacent_parent_shard_id}) {
    if (!parent->empty() && listed.count(*parent) != 0) parents.push_back(*parent);
  }
  return parents;
}

Status ValidateLineage(const std::vector<Shard>& shards) {
  std::map<std::string, const Shard*> by_id;
  for (const Shard& shard : shards) by_id[shard.shard_id] = &shard;
  std::set<std::string> listed;
  for (const auto& [id, shard] : by_id) listed.insert(id);
  // Iterative depth-first search with colours: a grey node met again closes a cycle.
  enum Colour { kWhite, kGrey, kBlack };
  std::map<std::string, Colour> colour;
  for (const auto& [root, root_shard] : by_id) {
    if (colour[root] != kWhite) continue;
    std::vector<std::pair<std::string, size_t>> stack{{root, 0}};
    colour[root] = kGrey;
    while (!stack.empty()) {
      auto& [id, next] = stack.back();
      const std::vector<std::string> parents = ListedParents(*by_id[id], listed);
      if (next >= parents.size()) {
        colour[id] = kBlack;
        stack.pop_back();
        continue;
      }
      const std::string parent = parents[next++];
      if (colour[parent] == kGrey) {
        return Status::Corruption("Kinesis shard lineage: shard " + parent +
                                  " is its own ancestor (through " + id + ")");
      }
      if (colour[parent] == kWhite) {
        colour[parent] = kGrey;
        stack.emplace_back(parent, 0);
      }
    }
  }
  return Status::OK();
}

std::vector<std::string> ReadableShards(const std::vector<Shard>& shards,
                                        const std::set<std::string>& finished) {
  std::set<std::string> listed;
  for (const Shard& shard : shards) listed.insert(shard.shard_id);
  std::vector<std::string> readable;
  for (const Shard& shard : shards) {
    if (finished.count(shard.shard_id) != 0) continue;
    bool parents_done = true;
    for (const std::string& parent : ListedParents(shard, listed)) {
      if (finished.count(parent) == 0) parents_done = false;
    }
    if (parents_done) readable.push_back(shard.shard_id);
  }
  return readable;
}

}  // namespace floe::aws::kinesis
