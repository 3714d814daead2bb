// The order in which a stream's shards may be read: a shard's records come
// after all of its parents' (a split's parent, both of a merge's parents),
// so per partition key the records stay in order across a reshard.
//
// Contract: ValidateLineage rejects a listing in which a shard is its own
// ancestor (directly or through others) with Corruption naming the shards —
// the listing comes from the network. ReadableShards returns, in listing
// order, the shards not in `finished` whose listed parents are all in
// `finished`; a parent that is not listed any more (expired past the
// retention period) counts as finished. Pure functions: thread-safe.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "aws/kinesis/kinesis_client.h"
#include "common/status.h"

namespace floe::aws::kinesis {

Status ValidateLineage(const std::vector<Shard>& shards);

std::vector<std::string> ReadableShards(const std::vector<Shard>& shards,
                                        const std::set<std::string>& finished);

// The listed parents of `shard` (0, 1 or 2 ids).
std::vector<std::string> ListedParents(const Shard& shard, const std::set<std::string>& listed);

}  // namespace floe::aws::kinesis
