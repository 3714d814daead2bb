// KinesisClient: the Kinesis Data Streams calls a consumer needs —
// ListShards, GetShardIterator, GetRecords — over the AWS JSON protocol.
//
// Contract:
// - A stream is named by "kinesis://<name>", its ARN
//   (arn:aws:kinesis:<region>:<account>:stream/<name>) or its bare name.
// - ListShards follows every NextToken (continuations carry only the token,
//   as Kinesis requires; a server that then cannot find the stream is asked
//   again with the stream named, as moto needs) and returns the shards in
//   the order listed, each with its lineage (parent, adjacent parent), hash
//   key range and sequence number range (ending set once the shard closed).
// - GetRecords returns the records as sent (data base64-decoded), the next
//   iterator (nullopt once a closed shard is read to its end), the
//   MillisBehindLatest and the ChildShards Kinesis names at a shard's end.
//   `limit` is 1..10000 records; Kinesis answers at most 10 MiB.
// - Sequence numbers stay decimal strings (sequence_number.h); every one in
//   an answer is validated, and the records of one answer must ascend.
// - Throttling (ProvisionedThroughputExceededException, LimitExceeded,
//   KMSThrottling, HTTP 429) and 5xx answers are retried with backoff by the
//   AWS client (all three calls are reads); errors name the stream, shard and
//   operation. *error_type receives the AWS error type of a failure
//   ("ExpiredIteratorException" tells a reader to renew its iterator).
// Thread-safe: calls may run concurrently.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "aws/json_client.h"
#include "common/status.h"

namespace floe::aws::kinesis {

struct StreamId {
  std::string name;
  std::string arn;  // set when the stream was named by ARN
  // "stream orders" or the ARN, for messages.
  std::string ToString() const { return arn.empty() ? "stream " + name : "stream " + arn; }
};

Result<StreamId> ParseStreamUri(const std::string& text);

struct Shard {
  std::string shard_id;
  std::string parent_shard_id;           // "" when none
  std::string adjacent_parent_shard_id;  // "" unless the shard came from a merge
  std::string starting_hash_key;
  std::string ending_hash_key;
  std::string starting_sequence_number;
  std::string ending_sequence_number;  // "" while the shard is open

  bool closed() const { return !ending_sequence_number.empty(); }
};

enum class IteratorType { kTrimHorizon, kLatest, kAtSequenceNumber, kAfterSequenceNumber };
const char* IteratorTypeName(IteratorType type);

struct IteratorStart {
  IteratorType type = IteratorType::kTrimHorizon;
  std::string sequence_number;  // kAtSequenceNumber / kAfterSequenceNumber
};

struct KinesisRecord {
  std::string sequence_number;
  std::string partition_key;
  std::string data;
  int64_t approximate_arrival_ms = 0;
};

struct ChildShard {
  std::string shard_id;
  std::vector<std::string> parent_shards;
};

struct GetRecordsResult {
  std::vector<KinesisRecord> records;
  std::optional<std::string> next_iterator;  // nullopt: the shard is closed and read to its end
  int64_t millis_behind_latest = 0;
  std::vector<ChildShard> child_shards;
  int64_t data_bytes = 0;  // sum of the records' data sizes
};

struct KinesisClientOptions {
  AwsClientOptions client;    // credentials, endpoint (AWS_ENDPOINT_URL_KINESIS, ...), retries
  int list_page_size = 1000;  // ListShards MaxResults (1..10000)
};

class KinesisClient {
 public:
  static Result<std::unique_ptr<KinesisClient>> Open(const KinesisClientOptions& options,
                                                     const EnvLookup& env = ProcessEnvironment());

  Result<std::vector<Shard>> ListShards(const StreamId& stream);
  Result<std::string> GetShardIterator(const StreamId& stream, const std::string& shard_id,
                                       const IteratorStart& start);
  Result<GetRecordsResult> GetRecords(const StreamId& stream, const std::string& shard_id,
                                      const std::string& iterator, int limit,
                                      std::string* error_type = nullptr);

  AwsJsonClient& json() { return *client_; }

 private:
  KinesisClient(KinesisClientOptions options, std::unique_ptr<AwsJsonClient> client)
      : options_(std::move(options)), client_(std::move(client)) {}

  KinesisClientOptions options_;
  std::unique_ptr<AwsJsonClient> client_;
};

// Parses one GetRecords answer (exposed for tests and the fuzz target).
Result<GetRecordsResult> ParseGetRecordsAnswer(const json::Json& answer, const std::string& context);
// Parses one Shard object of a ListShards answer.
Result<Shard> ParseShard(const json::Json& shard, const std::string& context);

}  // namespace floe::aws::kinesis
