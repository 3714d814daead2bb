// KinesisDiscovery and KinesisUnitOpener against moto's Kinesis, records put
// with boto3: ranges of sequence numbers cover every shard exactly once
// across bounded Discover calls (more_ready), each at most
// max_records_per_unit Kinesis records; ranges the ledger did not record are
// discovered again from its ends; a range's rows are the same whether the
// opener takes the records the discovery read, reads them again one unit at
// a time, or for the whole batch at once (Prepare). Skipped, saying so,
// where moto_server is not installed.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "aws/kinesis/sequence_number.h"
#include "common/base64.h"
#include "ingest/stream/kinesis_discovery.h"
#include "moto_test_server.h"

namespace floe::ingest {
namespace {

using json::Json;

class KinesisDiscoveryMotoTest : public testing::MotoTest {
 protected:
  static SourceConfig Config(const std::string& stream) {
    SourceConfig config;
    config.discovery = DiscoveryKind::kKinesis;
    config.format = SourceFormat::kJson;
    config.changes = ChangeKind::kAppend;
    config.uri = "kinesis://" + stream;
    config.kinesis.stream = stream;
    config.kinesis.table = "events";
    config.kinesis.endpoint = moto().url();
    config.kinesis.region = "us-east-1";
    config.text.infer_column_types = true;
    config.stream.metadata_column = true;
    return config;
  }
  static s3::S3Options Credentials() {
    s3::S3Options s3;
    s3.access_key_id = "testing";
    s3.secret_access_key = "testing";
    s3.region = "us-east-1";
    return s3;
  }
  static Json Put(const std::string& stream, int from, int count) {
    Json list = Json::array();
    for (int i = from; i < from + count; ++i) {
      list.push_back({{"key", "k" + std::to_string(i % 7)},
                      {"data_b64", Base64Encode(R"({"n":)" + std::to_string(i) + "}")}});
    }
    auto out =
        moto().Driver({{"command", "kinesis-put"}, {"stream", stream}, {"records", list}, {"batch", true}});
    EXPECT_TRUE(out.ok()) << out.status().ToString();
    return out.ok() ? *out : Json();
  }
  // The `n` of every row of `unit`, opened by `opener`.
  static std::vector<int64_t> Numbers(UnitOpener& opener, const SourceUnit& unit) {
    std::vector<int64_t> out;
    auto reader = opener.Open(unit, {});
    EXPECT_TRUE(reader.ok()) << reader.status().ToString();
    if (!reader.ok()) return out;
    for (int c = 0; c < (*reader)->num_chunks(); ++c) {
      auto batch = (*reader)->ReadChunk(c, {});
      EXPECT_TRUE(batch.ok());
      if (!batch.ok()) continue;
      for (int64_t row = 0; row < batch->num_rows; ++row)
        out.push_back(batch->columns[0].Value<int64_t>(row));
    }
    return out;
  }
};

TEST_F(KinesisDiscoveryMotoTest, RangesCoverEveryShardOnceAcrossBoundedDiscoversAndReadAlike) {
  const std::string stream = "bounded";
  ASSERT_OK(moto().Driver({{"command", "kinesis-create"}, {"stream", stream}, {"shards", 2}}).status());
  const Json put = Put(stream, 0, 40);
  const SourceConfig config = Config(stream);
  auto cache = std::make_shared<KinesisRangeCache>(int64_t{1} << 20);
  KinesisDiscoveryLimits limits;
  limits.max_records_per_unit = 4;
  limits.max_bytes_per_discover = 60;  // a few records a Discover
  limits.min_poll_interval_ms = 0;
  ASSERT_OK_AND_ASSIGN(auto discovery, KinesisDiscovery::Open(config, Credentials(), limits, cache));

  // As the pipeline does: the ledger's ends (here: every range recorded) before each Discover.
  StreamEnds ends;
  std::vector<SourceUnit> units;
  int discovers = 0;
  for (bool more = true; more && discovers < 100; ++discovers) {
    discovery->SetStreamEnds(ends);
    ASSERT_OK_AND_ASSIGN(DiscoveryResult found, discovery->Discover({}, 0));
    EXPECT_EQ(found.tables, std::vector<std::string>{"events"});
    more = found.more_ready;
    for (SourceUnit& unit : found.files) {
      ends[{stream, unit.range.partition}] = unit.range.last;
      units.push_back(std::move(unit));
    }
  }
  EXPECT_GT(discovers, 3) << "the byte bound did not cut the reading into several Discover calls";
  // Every put record in exactly one range of its shard; at most 4 records a range.
  std::map<std::string, int> holders;
  for (const Json& record : put) {
    const std::string shard = record["shard"].get<std::string>();
    const std::string sequence = record["sequence"].get<std::string>();
    for (const SourceUnit& unit : units) {
      if (unit.range.partition == shard &&
          aws::kinesis::CompareSequenceNumbers(unit.range.first, sequence) <= 0 &&
          aws::kinesis::CompareSequenceNumbers(sequence, unit.range.last) <= 0) {
        ++holders[shard + "/" + sequence];
      }
    }
    EXPECT_EQ(holders[shard + "/" + sequence], 1) << shard << " " << sequence;
  }
  for (const SourceUnit& unit : units) {
    EXPECT_EQ(unit.uri, "kinesis://" + stream + "/" + unit.range.partition + "/" + unit.range.first + "-" +
                            unit.range.last);
    EXPECT_EQ(unit.table, "events");
  }

  // Ranges the ledger did not record: the next Discover starts again from its ends.
  Put(stream, 40, 6);
  discovery->SetStreamEnds(ends);
  ASSERT_OK_AND_ASSIGN(DiscoveryResult first_try, discovery->Discover({}, 0));
  ASSERT_FALSE(first_try.files.empty());
  discovery->SetStreamEnds(ends);  // not advanced: nothing of first_try was recorded
  ASSERT_OK_AND_ASSIGN(DiscoveryResult second_try, discovery->Discover({}, 0));
  ASSERT_FALSE(second_try.files.empty());
  EXPECT_EQ(second_try.files.front().uri, first_try.files.front().uri);

  // The rows of a range: from the discovery's records, read again alone, read again with its batch.
  ASSERT_OK_AND_ASSIGN(auto with_cache, KinesisUnitOpener::Open(config, Credentials(), 64 << 20, cache));
  ASSERT_OK_AND_ASSIGN(auto reading, KinesisUnitOpener::Open(config, Credentials(), 64 << 20, nullptr));
  auto prepared_cache = std::make_shared<KinesisRangeCache>(int64_t{1} << 20);
  ASSERT_OK_AND_ASSIGN(auto preparing,
                       KinesisUnitOpener::Open(config, Credentials(), 64 << 20, prepared_cache));
  ASSERT_OK(preparing->Prepare(units));
  std::multiset<int64_t> seen;
  for (const SourceUnit& unit : units) {
    const std::vector<int64_t> rows = Numbers(*reading, unit);
    EXPECT_EQ(Numbers(*with_cache, unit), rows) << unit.uri;
    EXPECT_EQ(Numbers(*preparing, unit), rows) << unit.uri;
    seen.insert(rows.begin(), rows.end());
  }
  std::multiset<int64_t> expected;
  for (int64_t i = 0; i < 40; ++i) expected.insert(i);
  EXPECT_EQ(seen, expected);
}

}  // namespace
}  // namespace floe::ingest
