#include "aws/kinesis/shard_record.h"

#include "aws/kinesis/kpl_aggregation.h"

namespace floe::aws::kinesis {

void AppendShardRecords(KinesisRecord record, bool deaggregate, std::vector<ShardRecord>* out) {
  std::vector<UserRecord> users;
  std::string malformed;
  if (deaggregate) {
    auto deaggregated = Deaggregate(record.data, record.partition_key);
    if (deaggregated.ok()) {
      users = std::move(*deaggregated);
    } else {
      malformed = "a malformed KPL aggregate: " + deaggregated.status().message();
    }
  }
  if (!deaggregate || !malformed.empty()) {
    users.push_back(UserRecord{record.partition_key, "", std::move(record.data), 0, false});
  }
  for (UserRecord& user : users) {
    ShardRecord shard_record;
    shard_record.sequence_number = record.sequence_number;
    shard_record.subsequence_number = user.subsequence_number;
    shard_record.aggregated = user.aggregated;
    shard_record.partition_key = std::move(user.partition_key);
    shard_record.explicit_hash_key = std::move(user.explicit_hash_key);
    shard_record.data = std::move(user.data);
    shard_record.approximate_arrival_ms = record.approximate_arrival_ms;
    shard_record.error = malformed;
    out->push_back(std::move(shard_record));
  }
}

}  // namespace floe::aws::kinesis
