// floe's Kinesis client and stream reader against moto's Kinesis, with
// boto3 as the producer and as the oracle: records put across several shards
// and through a split and a merge are read back exactly once, in order per
// shard, every shard after its parents; KPL aggregates made by AWS Labs'
// aws-kinesis-agg come back de-aggregated; a reader reopened at its
// positions reads the rest once; injected throttling and an expired iterator
// lose nothing; a range of sequence numbers read again (ReadShardRange) is
// exactly its records, or an error when the shard no longer holds them. Skipped, saying so, where moto_server
// is not installed.
//
// moto quirks these tests live with: sequence numbers are small per-shard
// counters; after a reshard moto keeps routing new records to the closed
// parent and copies a merge's parent records into the child; a closed
// shard's iterator never ends (the reader's EndingSequenceNumber rule ends
// it). The oracle is therefore boto3's own per-shard reading of the stream.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "aws/kinesis/kpl_aggregation.h"
#include "aws/kinesis/shard_range.h"
#include "aws/kinesis/stream_reader.h"
#include "common/base64.h"
#include "moto_test_server.h"

namespace floe::aws::kinesis {
namespace {

using json::Json;

class KinesisMotoTest : public testing::MotoTest {
 protected:
  std::unique_ptr<KinesisClient> Client(int page_size = 2) {
    KinesisClientOptions options;
    options.client.credentials = {"us-east-1", "testing", "testing", "", ""};
    options.client.endpoint = moto().url();
    options.client.retry = {8, 30000, 1, 20};
    options.list_page_size = page_size;
    auto client = KinesisClient::Open(options, MapEnvironment({}));
    EXPECT_TRUE(client.ok()) << client.status().ToString();
    return client.ok() ? std::move(*client) : nullptr;
  }

  static Json Put(const std::string& stream,
                  const std::vector<std::pair<std::string, std::string>>& records) {
    Json list = Json::array();
    for (const auto& [key, data] : records) list.push_back({{"key", key}, {"data_b64", Base64Encode(data)}});
    auto out = moto().Driver({{"command", "kinesis-put"}, {"stream", stream}, {"records", list}});
    EXPECT_TRUE(out.ok()) << out.status().ToString();
    return out.ok() ? *out : Json();
  }

  static void Driver(const Json& command) {
    auto out = moto().Driver(command);
    ASSERT_TRUE(out.ok()) << out.status().ToString();
  }

  // Polls until every shard finished or stayed quiet for two polls in a row.
  struct ReadLog {
    std::vector<std::pair<std::string, ShardRecord>> records;  // (shard, record) in reading order
    std::vector<PollResult> polls;
  };
  static Status ReadAll(KinesisStreamReader& reader, ReadLog* log, int max_polls = 10000) {
    int quiet = 0;
    for (int i = 0; i < max_polls && quiet < 2; ++i) {
      FLOE_ASSIGN_OR_RETURN(PollResult poll, reader.Poll());
      quiet = poll.caught_up ? quiet + 1 : 0;
      for (const ShardBatch& batch : poll.batches) {
        for (const ShardRecord& record : batch.records) log->records.emplace_back(batch.shard_id, record);
      }
      log->polls.push_back(std::move(poll));
    }
    return Status::OK();
  }

  // boto3's reading of the stream: shard -> Kinesis sequence numbers in order.
  static std::map<std::string, std::vector<std::string>> Oracle(const std::string& stream) {
    auto dump = moto().Driver({{"command", "kinesis-dump"}, {"stream", stream}});
    EXPECT_TRUE(dump.ok()) << dump.status().ToString();
    std::map<std::string, std::vector<std::string>> out;
    if (!dump.ok()) return out;
    for (auto it = dump->begin(); it != dump->end(); ++it) {
      auto& list = out[it.key()];
      for (const Json& record : it.value()) list.push_back(record[0].get<std::string>());
    }
    return out;
  }

  // The oracle without its empty shards.
  static std::map<std::string, std::vector<std::string>> NonEmpty(
      const std::map<std::string, std::vector<std::string>>& oracle) {
    std::map<std::string, std::vector<std::string>> out;
    for (const auto& [shard, list] : oracle) {
      if (!list.empty()) out[shard] = list;
    }
    return out;
  }

  // floe's reading: shard -> every Kinesis sequence number returned, in order.
  static std::map<std::string, std::vector<std::string>> EveryRecordRead(const ReadLog& log) {
    std::map<std::string, std::vector<std::string>> out;
    for (const auto& [shard, record] : log.records) out[shard].push_back(record.sequence_number);
    return out;
  }

  // floe's reading: shard -> distinct Kinesis sequence numbers in reading order.
  static std::map<std::string, std::vector<std::string>> SequencesRead(const ReadLog& log) {
    std::map<std::string, std::vector<std::string>> out;
    for (const auto& [shard, record] : log.records) {
      auto& list = out[shard];
      if (list.empty() || list.back() != record.sequence_number) list.push_back(record.sequence_number);
    }
    return out;
  }
};

std::vector<std::pair<std::string, std::string>> Records(const std::string& prefix, int count) {
  std::vector<std::pair<std::string, std::string>> out;
  for (int i = 0; i < count; ++i)
    out.emplace_back("key-" + std::to_string(i * 7919 % 1000), prefix + std::to_string(i));
  return out;
}

TEST_F(KinesisMotoTest, ReshardedStreamIsReadOncePerShardInOrderParentsFirst) {
  const std::string stream = "orders";
  Driver({{"command", "kinesis-create"}, {"stream", stream}, {"shards", 2}});
  Put(stream, Records("before-split-", 40));
  // Split shard 0 at 2^126, then merge its upper child with shard 1.
  Driver({{"command", "kinesis-split"},
          {"stream", stream},
          {"shard", "shardId-000000000000"},
          {"new_starting_hash_key", "85070591730234615865843651857942052864"}});
  Put(stream, Records("after-split-", 30));
  Driver({{"command", "kinesis-merge"},
          {"stream", stream},
          {"shard", "shardId-000000000003"},
          {"adjacent", "shardId-000000000001"}});
  Put(stream, Records("after-merge-", 30));
  // KPL aggregates, made by AWS Labs' aggregator, put with boto3.
  std::vector<std::string> aggregated_payloads;
  for (int a = 0; a < 3; ++a) {
    Json users = Json::array();
    for (int u = 0; u < 5; ++u) {
      const std::string data = "user-" + std::to_string(a) + "-" + std::to_string(u);
      aggregated_payloads.push_back(data);
      users.push_back({{"partitionKey", "pk-" + std::to_string(u)}, {"data_b64", Base64Encode(data)}});
    }
    ASSERT_OK_AND_ASSIGN(Json aggregates, moto().Aggregate(users));
    ASSERT_EQ(aggregates.size(), 1u);
    auto data = Base64Decode(aggregates[0]["data_b64"].get<std::string>());
    ASSERT_OK(data);
    Put(stream, {{aggregates[0]["partitionKey"].get<std::string>(), *data}});
  }

  const auto oracle = Oracle(stream);
  ASSERT_EQ(oracle.size(), 5u);           // shards 0..4
  auto client = Client(/*page_size=*/2);  // ListShards pages through NextToken
  ASSERT_NE(client, nullptr);
  KinesisReaderOptions options;
  options.stream = {stream, ""};
  options.max_bytes_per_poll = 64;  // many small polls
  options.relist_interval_ms = 0;
  ASSERT_OK_AND_ASSIGN(auto reader, KinesisStreamReader::Open(client.get(), options));
  ReadLog log;
  ASSERT_OK(ReadAll(*reader, &log));

  EXPECT_EQ(SequencesRead(log), NonEmpty(oracle));
  // Every (shard, sequence, subsequence) once.
  std::set<std::tuple<std::string, std::string, int64_t>> seen;
  for (const auto& [shard, record] : log.records) {
    EXPECT_TRUE(seen.emplace(shard, record.sequence_number, record.subsequence_number).second)
        << shard << " " << record.sequence_number << "/" << record.subsequence_number << " read twice";
    EXPECT_TRUE(record.error.empty()) << record.error;
  }
  // Lineage: no record of a child before the last record of each parent.
  std::map<std::string, size_t> first_index;
  std::map<std::string, size_t> last_index;
  for (size_t i = 0; i < log.records.size(); ++i) {
    first_index.try_emplace(log.records[i].first, i);
    last_index[log.records[i].first] = i;
  }
  for (const Shard& shard : reader->shards()) {
    if (!first_index.count(shard.shard_id)) continue;
    for (const std::string& parent : {shard.parent_shard_id, shard.adjacent_parent_shard_id}) {
      if (parent.empty() || !last_index.count(parent)) continue;
      EXPECT_GT(first_index[shard.shard_id], last_index[parent])
          << shard.shard_id << " read before " << parent;
    }
  }
  EXPECT_TRUE(reader->finished_shards().count("shardId-000000000000"));
  EXPECT_TRUE(reader->finished_shards().count("shardId-000000000001"));
  // The aggregates' user records, de-aggregated, in order.
  std::vector<std::string> users;
  for (const auto& [shard, record] : log.records) {
    if (record.aggregated) users.push_back(record.data);
  }
  // moto copies a merge parent's records into the child: compare the distinct payloads.
  std::vector<std::string> distinct;
  for (const std::string& user : users) {
    if (std::find(distinct.begin(), distinct.end(), user) == distinct.end()) distinct.push_back(user);
  }
  EXPECT_EQ(distinct, aggregated_payloads);
  // Bounded polls: over budget only when a poll returned a single Kinesis record.
  for (const PollResult& poll : log.polls) {
    std::set<std::pair<std::string, std::string>> kinesis_records;
    for (const ShardBatch& batch : poll.batches) {
      for (const ShardRecord& record : batch.records)
        kinesis_records.emplace(batch.shard_id, record.sequence_number);
    }
    if (kinesis_records.size() > 1) {
      EXPECT_LE(poll.data_bytes, options.max_bytes_per_poll);
    }
  }
}

TEST_F(KinesisMotoTest, ReopenedAtItsPositionsAReaderReadsTheRestOnce) {
  const std::string stream = "resume";
  Driver({{"command", "kinesis-create"}, {"stream", stream}, {"shards", 3}});
  Put(stream, Records("r", 60));
  const auto oracle = Oracle(stream);
  auto client = Client();
  ASSERT_NE(client, nullptr);
  KinesisReaderOptions options;
  options.stream = {stream, ""};
  options.max_bytes_per_poll = 40;
  ASSERT_OK_AND_ASSIGN(auto first, KinesisStreamReader::Open(client.get(), options));
  ReadLog log;
  ASSERT_OK(ReadAll(*first, &log, /*max_polls=*/4));
  ASSERT_FALSE(log.records.empty());
  std::map<std::string, IteratorStart> starts;
  for (const auto& [shard, position] : first->Positions()) {
    starts[shard] = {IteratorType::kAfterSequenceNumber, position};
  }
  ASSERT_OK_AND_ASSIGN(auto second, KinesisStreamReader::Open(client.get(), options, starts));
  ASSERT_OK(ReadAll(*second, &log));
  EXPECT_EQ(EveryRecordRead(log), NonEmpty(oracle));
}

TEST_F(KinesisMotoTest, ThrottlingAndAnExpiredIteratorLoseNothing) {
  const std::string stream = "throttled";
  Driver({{"command", "kinesis-create"}, {"stream", stream}, {"shards", 2}});
  Put(stream, Records("t", 50));
  const auto oracle = Oracle(stream);
  auto client = Client();
  ASSERT_NE(client, nullptr);
  int calls = 0;
  int throttled = 0;
  int expired = 0;
  client->json().SetExchangeForTesting([&](std::string_view operation, const http::HttpRequest& request,
                                           const AwsJsonClient::Send& send) -> Result<http::HttpResponse> {
    if (operation == "GetRecords") {
      ++calls;
      if (calls == 4) {
        ++expired;
        return http::HttpResponse{400, {}, R"({"__type":"ExpiredIteratorException","message":"expired"})", 0};
      }
      if (calls % 3 == 0) {
        ++throttled;
        return http::HttpResponse{
            400, {}, R"({"__type":"ProvisionedThroughputExceededException","message":"Rate exceeded"})", 0};
      }
    }
    return send(request);
  });
  KinesisReaderOptions options;
  options.stream = {stream, ""};
  options.max_bytes_per_poll = 30;
  ASSERT_OK_AND_ASSIGN(auto reader, KinesisStreamReader::Open(client.get(), options));
  ReadLog log;
  ASSERT_OK(ReadAll(*reader, &log));
  EXPECT_GT(throttled, 3);
  EXPECT_EQ(expired, 1);
  EXPECT_EQ(EveryRecordRead(log), NonEmpty(oracle));
}

TEST_F(KinesisMotoTest, LatestStartsAtTheTip) {
  const std::string stream = "tip";
  Driver({{"command", "kinesis-create"}, {"stream", stream}, {"shards", 2}});
  Put(stream, Records("old-", 10));
  auto client = Client();
  ASSERT_NE(client, nullptr);
  KinesisReaderOptions options;
  options.stream = {stream, ""};
  options.initial = IteratorType::kLatest;
  ASSERT_OK_AND_ASSIGN(auto reader, KinesisStreamReader::Open(client.get(), options));
  ASSERT_OK_AND_ASSIGN(PollResult first, reader->Poll());
  EXPECT_TRUE(first.batches.empty());
  Put(stream, Records("new-", 6));
  ReadLog log;
  ASSERT_OK(ReadAll(*reader, &log));
  std::multiset<std::string> payloads;
  for (const auto& [shard, record] : log.records) payloads.insert(record.data);
  EXPECT_EQ(payloads, (std::multiset<std::string>{"new-0", "new-1", "new-2", "new-3", "new-4", "new-5"}));
}

// The JSON-protocol requests, signed by floe, verified by an independent
// SigV4 implementation (node's crypto in tests/tools/fault_proxy.mjs) on
// their way to moto, with 503s and dropped connections injected on the way.
TEST_F(KinesisMotoTest, SignaturesVerifyIndependentlyAndTransportFaultsAreRetried) {
  const std::string stream = "signed";
  Driver({{"command", "kinesis-create"}, {"stream", stream}, {"shards", 2}});
  Put(stream, Records("s", 12));
  const auto oracle = Oracle(stream);
  testing::TempDir logs;
  testing::NodeProcess proxy;
  auto port = proxy.Start({(testing::SourceDir() / "tests/tools/fault_proxy.mjs").string(),
                           std::to_string(moto().port()), "testing"},
                          logs.File("proxy.log"));
  ASSERT_TRUE(port.has_value()) << proxy.error();
  const std::string proxy_url = "http://127.0.0.1:" + std::to_string(*port);
  http::HttpTransport control(2000, 10000);
  auto control_call = [&](const std::string& method, const std::string& path,
                          const std::string& body) -> Result<Json> {
    http::HttpRequest request;
    request.method = method;
    request.url = proxy_url + path;
    request.body = std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(body.data()), body.size());
    FLOE_ASSIGN_OR_RETURN(http::HttpResponse response, control.Execute(request));
    return json::ParseJson(response.body);
  };
  ASSERT_OK(control_call("POST", "/__proxy/faults", R"(["POST:503", "POST:drop", "POST:500"])").status());

  KinesisClientOptions options;
  options.client.credentials = {"us-east-1", "AKIDTESTING", "testing", "", ""};
  options.client.endpoint = proxy_url;
  options.client.retry = {6, 30000, 1, 20};
  ASSERT_OK_AND_ASSIGN(auto client, KinesisClient::Open(options, MapEnvironment({})));
  KinesisReaderOptions reader_options;
  reader_options.stream = {stream, ""};
  ASSERT_OK_AND_ASSIGN(auto reader, KinesisStreamReader::Open(client.get(), reader_options));
  ReadLog log;
  ASSERT_OK(ReadAll(*reader, &log));
  EXPECT_EQ(EveryRecordRead(log), NonEmpty(oracle));
  ASSERT_OK_AND_ASSIGN(Json stats, control_call("GET", "/__proxy/stats", ""));
  EXPECT_GT(stats["requests"].get<int>(), 6);
  EXPECT_EQ(stats["signatureFailures"].get<int>(), 0) << stats.dump(1);
  EXPECT_EQ(stats["queued"].get<int>(), 0);  // every injected fault was met and survived
}

TEST_F(KinesisMotoTest, AtAndAfterSequenceNumberStartWhereTheySay) {
  const std::string stream = "positions";
  Driver({{"command", "kinesis-create"}, {"stream", stream}, {"shards", 1}});
  const Json put = Put(stream, Records("p", 5));
  ASSERT_EQ(put.size(), 5u);
  const std::string shard = put[0]["shard"].get<std::string>();
  const std::string third = put[2]["sequence"].get<std::string>();
  auto client = Client();
  ASSERT_NE(client, nullptr);
  for (const auto& [type, first] : {std::pair{IteratorType::kAtSequenceNumber, std::string("p2")},
                                    std::pair{IteratorType::kAfterSequenceNumber, std::string("p3")}}) {
    KinesisReaderOptions options;
    options.stream = {"", "arn:aws:kinesis:us-east-1:123456789012:stream/" + stream};  // by ARN this time
    ASSERT_OK_AND_ASSIGN(options.stream, ParseStreamUri(options.stream.arn));
    ASSERT_OK_AND_ASSIGN(
        auto reader, KinesisStreamReader::Open(client.get(), options, {{shard, IteratorStart{type, third}}}));
    ReadLog log;
    ASSERT_OK(ReadAll(*reader, &log));
    ASSERT_FALSE(log.records.empty()) << IteratorTypeName(type);
    EXPECT_EQ(log.records.front().second.data, first) << IteratorTypeName(type);
    EXPECT_EQ(log.records.back().second.data, "p4");
  }
}

TEST_F(KinesisMotoTest, ARangeReadAgainIsExactlyItsRecordsOrAnError) {
  const std::string stream = "ranges";
  Driver({{"command", "kinesis-create"}, {"stream", stream}, {"shards", 1}});
  // Twelve records, the fifth a KPL aggregate of three user records.
  std::vector<std::pair<std::string, std::string>> records = Records("r", 12);
  records[4].second = AggregateForTesting(
      {{"pk-a", "", "agg-0", 0, true}, {"pk-b", "", "agg-1", 1, true}, {"pk-a", "", "agg-2", 2, true}});
  const Json put = Put(stream, records);
  ASSERT_EQ(put.size(), 12u);
  const std::string shard = put[0]["shard"].get<std::string>();
  auto sequence = [&](int i) { return put[i]["sequence"].get<std::string>(); };
  auto client = Client();
  ASSERT_NE(client, nullptr);
  int calls = 0;
  client->json().SetExchangeForTesting([&](std::string_view operation, const http::HttpRequest& request,
                                           const AwsJsonClient::Send& send) -> Result<http::HttpResponse> {
    if (operation == "GetRecords" && ++calls <= 2) {
      return http::HttpResponse{
          400,
          {},
          calls == 1 ? R"({"__type":"ProvisionedThroughputExceededException","message":"slow down"})"
                     : R"({"__type":"ExpiredIteratorException","message":"expired"})",
          0};
    }
    return send(request);
  });
  ShardRangeOptions options;
  options.max_records_per_call = 2;  // several pages, an expired iterator renewed after the last read
  options.min_call_interval_ms = 0;
  ASSERT_OK_AND_ASSIGN(auto range,
                       ReadShardRange(*client, {stream, ""}, shard, sequence(2), sequence(9), options));
  std::vector<std::string> data;
  for (const ShardRecord& record : range) data.push_back(record.data);
  EXPECT_EQ(data,
            (std::vector<std::string>{"r2", "r3", "agg-0", "agg-1", "agg-2", "r5", "r6", "r7", "r8", "r9"}));
  EXPECT_EQ(range.front().sequence_number, sequence(2));
  EXPECT_EQ(range.back().sequence_number, sequence(9));
  EXPECT_EQ(range[3].sequence_number, sequence(4));
  EXPECT_EQ(range[3].subsequence_number, 1);
  EXPECT_EQ(range[3].partition_key, "pk-b");

  // A first record the shard no longer holds (moto starts at "1": "0" stands
  // for a record trimmed by the retention period): not retryable, named.
  auto trimmed = ReadShardRange(*client, {stream, ""}, shard, "0", sequence(3), options);
  ASSERT_FALSE(trimmed.ok());
  EXPECT_FALSE(trimmed.status().retryable());
  EXPECT_NE(trimmed.status().message().find("no longer holds sequence number 0"), std::string::npos)
      << trimmed.status().message();
  // A last record past the open shard's end: nothing comes, a retryable error.
  options.no_progress_timeout_ms = 300;
  auto beyond = ReadShardRange(*client, {stream, ""}, shard, sequence(10), "999999", options);
  ASSERT_FALSE(beyond.ok());
  EXPECT_TRUE(beyond.status().retryable()) << beyond.status().ToString();
  EXPECT_NE(beyond.status().message().find("no records from Kinesis"), std::string::npos)
      << beyond.status().message();
}

TEST_F(KinesisMotoTest, MissingStreamIsNotFoundNamingIt) {
  auto client = Client();
  ASSERT_NE(client, nullptr);
  auto shards = client->ListShards({"no-such-stream", ""});
  ASSERT_FALSE(shards.ok());
  EXPECT_EQ(shards.status().kind(), ErrorKind::kNotFound) << shards.status().ToString();
  EXPECT_NE(shards.status().message().find("no-such-stream"), std::string::npos) << shards.status().message();
}

}  // namespace
}  // namespace floe::aws::kinesis
