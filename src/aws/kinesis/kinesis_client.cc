#include "aws/kinesis/kinesis_client.h"

#include <cmath>
#include <set>

#include "aws/kinesis/sequence_number.h"
#include "common/base64.h"

namespace floe::aws::kinesis {

using json::Json;

namespace {

constexpr int kMaxPages = 100000;

void AddStream(const StreamId& stream, Json* request) {
  if (!stream.arn.empty()) {
    (*request)["StreamARN"] = stream.arn;
  } else {
    (*request)["StreamName"] = stream.name;
  }
}

Result<std::string> OptionalSequence(const Json& object, const char* key, const std::string& context) {
  auto value = json::GetOptionalString(object, key);
  if (!value.ok()) return value.status().WithContext(context);
  if (!value->has_value()) return std::string();
  if (!IsSequenceNumber(**value)) {
    return Status::Corruption(context + ": " + key + " '" + (**value).substr(0, 200) +
                              "' is not a sequence number (up to 129 decimal digits)");
  }
  return **value;
}

Result<std::string> OptionalText(const Json& object, const char* key, const std::string& context) {
  auto value = json::GetOptionalString(object, key);
  if (!value.ok()) return value.status().WithContext(context);
  return value->value_or("");
}

}  // namespace

const char* IteratorTypeName(IteratorType type) {
  switch (type) {
    case IteratorType::kTrimHorizon: return "TRIM_HORIZON";
    case IteratorType::kLatest: return "LATEST";
    case IteratorType::kAtSequenceNumber: return "AT_SEQUENCE_NUMBER";
    case IteratorType::kAfterSequenceNumber: return "AFTER_SEQUENCE_NUMBER";
  }
  return "TRIM_HORIZON";
}

Result<StreamId> ParseStreamUri(const std::string& text) {
  StreamId stream;
  std::string name = text;
  if (text.rfind("kinesis://", 0) == 0) {
    name = text.substr(10);
    while (!name.empty() && name.back() == '/') name.pop_back();
  } else if (text.rfind("arn:", 0) == 0) {
    // arn:<partition>:kinesis:<region>:<account>:stream/<name>
    const size_t slash = text.find(":stream/");
    if (slash == std::string::npos || text.find(":kinesis:") == std::string::npos) {
      return Status::InvalidArgument("'" + text + "' is not a Kinesis stream ARN (arn:aws:kinesis:<region>:" +
                                     "<account>:stream/<name>)");
    }
    stream.arn = text;
    name = text.substr(slash + 8);
  }
  // Kinesis stream names: 1-128 of [a-zA-Z0-9_.-].
  if (name.empty() || name.size() > 128) {
    return Status::InvalidArgument("Kinesis stream name in '" + text + "' must be 1-128 characters long");
  }
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                    c == '.' || c == '-';
    if (!ok) {
      return Status::InvalidArgument("Kinesis stream name in '" + text +
                                     "' may hold only letters, digits, '_', '.' and '-'");
    }
  }
  stream.name = name;
  return stream;
}

Result<Shard> ParseShard(const Json& object, const std::string& context) {
  if (!object.is_object()) return Status::Corruption(context + ": a shard is not an object");
  Shard shard;
  auto id = json::GetString(object, "ShardId");
  if (!id.ok()) return id.status().WithContext(context);
  shard.shard_id = *id;
  const std::string where = context + ", shard " + shard.shard_id;
  FLOE_ASSIGN_OR_RETURN(shard.parent_shard_id, OptionalText(object, "ParentShardId", where));
  FLOE_ASSIGN_OR_RETURN(shard.adjacent_parent_shard_id, OptionalText(object, "AdjacentParentShardId", where));
  auto hash = json::GetOptionalObject(object, "HashKeyRange");
  if (!hash.ok()) return hash.status().WithContext(where);
  if (*hash != nullptr) {
    FLOE_ASSIGN_OR_RETURN(shard.starting_hash_key, OptionalText(**hash, "StartingHashKey", where));
    FLOE_ASSIGN_OR_RETURN(shard.ending_hash_key, OptionalText(**hash, "EndingHashKey", where));
  }
  auto range = json::GetOptionalObject(object, "SequenceNumberRange");
  if (!range.ok()) return range.status().WithContext(where);
  if (*range != nullptr) {
    FLOE_ASSIGN_OR_RETURN(shard.starting_sequence_number,
                          OptionalSequence(**range, "StartingSequenceNumber", where));
    FLOE_ASSIGN_OR_RETURN(shard.ending_sequence_number,
                          OptionalSequence(**range, "EndingSequenceNumber", where));
  }
  return shard;
}

Result<GetRecordsResult> ParseGetRecordsAnswer(const Json& answer, const std::string& context) {
  GetRecordsResult result;
  auto records = json::GetOptionalArray(answer, "Records");
  if (!records.ok()) return records.status().WithContext(context);
  if (*records != nullptr) {
    result.records.reserve((*records)->size());
    for (const Json& entry : **records) {
      if (!entry.is_object()) return Status::Corruption(context + ": a record is not an object");
      KinesisRecord record;
      auto sequence = json::GetString(entry, "SequenceNumber");
      if (!sequence.ok()) return sequence.status().WithContext(context);
      if (!IsSequenceNumber(*sequence)) {
        return Status::Corruption(context + ": SequenceNumber '" + sequence->substr(0, 200) +
                                  "' is not a sequence number (up to 129 decimal digits)");
      }
      record.sequence_number = *sequence;
      const std::string where = context + ", record " + record.sequence_number;
      if (!result.records.empty() &&
          CompareSequenceNumbers(result.records.back().sequence_number, record.sequence_number) >= 0) {
        return Status::Corruption(where + " does not follow " + result.records.back().sequence_number +
                                  " (records of a shard must ascend)");
      }
      FLOE_ASSIGN_OR_RETURN(record.partition_key, OptionalText(entry, "PartitionKey", where));
      auto data = json::GetString(entry, "Data");
      if (!data.ok()) return data.status().WithContext(where);
      auto decoded = Base64Decode(*data);
      if (!decoded.ok()) return decoded.status().WithContext(where + ", Data");
      record.data = std::move(*decoded);
      if (const Json* arrival = json::FindMember(entry, "ApproximateArrivalTimestamp");
          arrival != nullptr && arrival->is_number()) {
        const double seconds = arrival->get<double>();
        if (std::isfinite(seconds) && seconds >= 0 && seconds < 1e13) {
          record.approximate_arrival_ms = static_cast<int64_t>(std::llround(seconds * 1000.0));
        }
      }
      result.data_bytes += static_cast<int64_t>(record.data.size());
      result.records.push_back(std::move(record));
    }
  }
  auto next = json::GetOptionalString(answer, "NextShardIterator");
  if (!next.ok()) return next.status().WithContext(context);
  if (next->has_value() && !(*next)->empty()) result.next_iterator = **next;
  auto behind = json::GetOptionalInt64(answer, "MillisBehindLatest");
  if (!behind.ok()) return behind.status().WithContext(context);
  result.millis_behind_latest = behind->value_or(0);
  auto children = json::GetOptionalArray(answer, "ChildShards");
  if (!children.ok()) return children.status().WithContext(context);
  if (*children != nullptr) {
    for (const Json& entry : **children) {
      ChildShard child;
      auto id = json::GetString(entry, "ShardId");
      if (!id.ok()) return id.status().WithContext(context + ", ChildShards");
      child.shard_id = *id;
      auto parents = json::GetOptionalArray(entry, "ParentShards");
      if (!parents.ok()) return parents.status().WithContext(context + ", ChildShards");
      if (*parents != nullptr) {
        for (const Json& parent : **parents) {
          if (!parent.is_string())
            return Status::Corruption(context + ": a ParentShards entry is not a string");
          child.parent_shards.push_back(parent.get<std::string>());
        }
      }
      result.child_shards.push_back(std::move(child));
    }
  }
  return result;
}

Result<std::unique_ptr<KinesisClient>> KinesisClient::Open(const KinesisClientOptions& options,
                                                           const EnvLookup& env) {
  if (options.list_page_size < 1 || options.list_page_size > 10000) {
    return Status::InvalidArgument("Kinesis client: list_page_size must be within 1..10000");
  }
  FLOE_ASSIGN_OR_RETURN(std::unique_ptr<AwsJsonClient> client,
                        AwsJsonClient::Open(KinesisService(), options.client, env));
  return std::unique_ptr<KinesisClient>(new KinesisClient(options, std::move(client)));
}

Result<std::vector<Shard>> KinesisClient::ListShards(const StreamId& stream) {
  const std::string context = "Kinesis ListShards of " + stream.ToString();
  std::vector<Shard> shards;
  std::set<std::string> seen_tokens;
  std::set<std::string> seen_shards;
  std::string token;
  bool name_with_token = false;  // learnt from a server that needs the stream on continuations
  for (int page = 0; page < kMaxPages; ++page) {
    Json request = {{"MaxResults", options_.list_page_size}};
    if (token.empty() || name_with_token) AddStream(stream, &request);
    if (!token.empty()) request["NextToken"] = token;
    std::string error_type;
    auto answer = client_->Call("ListShards", request, CallKind::kIdempotent, &error_type);
    // A refused token-only continuation (moto answers InvalidToken or
    // ResourceNotFound) is asked again with the stream named.
    if (!answer.ok() && !token.empty() && !name_with_token && !answer.status().retryable() &&
        !error_type.empty()) {
      name_with_token = true;
      --page;
      continue;
    }
    if (!answer.ok()) return answer.status().WithContext(stream.ToString());
    auto list = json::GetOptionalArray(*answer, "Shards");
    if (!list.ok()) return list.status().WithContext(context);
    if (*list != nullptr) {
      for (const Json& entry : **list) {
        FLOE_ASSIGN_OR_RETURN(Shard shard, ParseShard(entry, context));
        if (!seen_shards.insert(shard.shard_id).second) {
          return Status::Corruption(context + ": shard " + shard.shard_id + " is listed twice");
        }
        shards.push_back(std::move(shard));
      }
    }
    auto next = json::GetOptionalString(*answer, "NextToken");
    if (!next.ok()) return next.status().WithContext(context);
    if (!next->has_value() || (*next)->empty()) return shards;
    if (!seen_tokens.insert(**next).second) {
      return Status::Corruption(context + ": the server repeated the page token '" + (**next).substr(0, 100) +
                                "'");
    }
    token = **next;
  }
  return Status::Corruption(context + ": more than " + std::to_string(kMaxPages) + " pages");
}

Result<std::string> KinesisClient::GetShardIterator(const StreamId& stream, const std::string& shard_id,
                                                    const IteratorStart& start) {
  const std::string where = stream.ToString() + ", shard " + shard_id;
  Json request = {{"ShardId", shard_id}, {"ShardIteratorType", IteratorTypeName(start.type)}};
  AddStream(stream, &request);
  if (start.type == IteratorType::kAtSequenceNumber || start.type == IteratorType::kAfterSequenceNumber) {
    if (!IsSequenceNumber(start.sequence_number)) {
      return Status::InvalidArgument(where + ": '" + start.sequence_number + "' is not a sequence number");
    }
    request["StartingSequenceNumber"] = start.sequence_number;
  }
  auto answer = client_->Call("GetShardIterator", request);
  if (!answer.ok()) return answer.status().WithContext(where);
  auto iterator = json::GetString(*answer, "ShardIterator");
  if (!iterator.ok() || iterator->empty()) {
    return Status::Corruption("Kinesis GetShardIterator of " + where + ": the answer has no ShardIterator");
  }
  return *iterator;
}

Result<GetRecordsResult> KinesisClient::GetRecords(const StreamId& stream, const std::string& shard_id,
                                                   const std::string& iterator, int limit,
                                                   std::string* error_type) {
  const std::string where = stream.ToString() + ", shard " + shard_id;
  if (limit < 1 || limit > 10000)
    return Status::InvalidArgument(where + ": GetRecords limit must be 1..10000");
  Json request = {{"ShardIterator", iterator}, {"Limit", limit}};
  if (!stream.arn.empty()) request["StreamARN"] = stream.arn;
  auto answer = client_->Call("GetRecords", request, CallKind::kIdempotent, error_type);
  if (!answer.ok()) return answer.status().WithContext(where);
  return ParseGetRecordsAnswer(*answer, "Kinesis GetRecords of " + where);
}

}  // namespace floe::aws::kinesis
