// Fuzzes the readers of AWS JSON answers floe trusts least: Kinesis
// GetRecords and ListShards entries, SQS ReceiveMessage, AWS error bodies.
// Each returns a value or an error, never crashes.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "aws/aws_error.h"
#include "aws/kinesis/kinesis_client.h"
#include "aws/kinesis/shard_lineage.h"
#include "aws/sqs/sqs_client.h"
#include "common/json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace floe;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)aws::AwsErrorStatus(aws::ParseAwsError(400, {}, text), "fuzz");
  auto parsed = json::ParseJson(text);
  if (!parsed.ok() || !parsed->is_object()) return 0;
  (void)aws::kinesis::ParseGetRecordsAnswer(*parsed, "fuzz");
  (void)aws::sqs::ParseReceiveAnswer(*parsed, "fuzz");
  if (const json::Json* shards = json::FindMember(*parsed, "Shards");
      shards != nullptr && shards->is_array()) {
    std::vector<aws::kinesis::Shard> list;
    for (const json::Json& entry : *shards) {
      auto shard = aws::kinesis::ParseShard(entry, "fuzz");
      if (shard.ok()) list.push_back(*shard);
    }
    if (aws::kinesis::ValidateLineage(list).ok()) (void)aws::kinesis::ReadableShards(list, {});
  }
  return 0;
}
