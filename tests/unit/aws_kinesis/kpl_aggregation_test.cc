// KPL de-aggregation: an aggregate written by AWS Labs' aws-kinesis-agg
// (node, protobufjs) decodes to its user records; plain records, records
// whose MD5 trailer does not match and short records pass through whole (the
// KCL's rules); malformed protobuf behind a valid trailer is Corruption
// naming the offset. Also the sequence number rules and shard lineage.
#include "aws/kinesis/kpl_aggregation.h"

#include <gtest/gtest.h>

#include "aws/digest.h"
#include "aws/kinesis/protobuf_wire.h"
#include "aws/kinesis/sequence_number.h"
#include "aws/kinesis/shard_lineage.h"
#include "common/base64.h"
#include "test_util.h"

namespace floe::aws::kinesis {
namespace {

std::string Unbase64(const std::string& text) {
  auto decoded = Base64Decode(text);
  EXPECT_TRUE(decoded.ok()) << decoded.status().ToString();
  return decoded.ok() ? *decoded : "";
}

// Wraps a protobuf message in magic and a correct MD5 trailer.
std::string Framed(const std::string& message) {
  std::string out(reinterpret_cast<const char*>(kKplMagic), 4);
  out += message;
  const auto digest = Md5({reinterpret_cast<const uint8_t*>(message.data()), message.size()});
  out.append(reinterpret_cast<const char*>(digest.data()), digest.size());
  return out;
}

TEST(KplAggregationTest, DecodesWhatAwsLabsAggregatorWrote) {
  // node tests/tools/kpl_aggregate.mjs over
  // [{"partitionKey":"a","data":"hello"},{"partitionKey":"b","data":"world","explicitHashKey":"12345"}]
  const std::string aggregate =
      Unbase64("84mawgoBYQoBYhIFMTIzNDUaCQgAGgVoZWxsbxoLCAEQABoFd29ybGT2YRMCQf/GULmKe989CFKU");
  ASSERT_TRUE(IsKplAggregate(aggregate));
  ASSERT_OK_AND_ASSIGN(std::vector<UserRecord> users, Deaggregate(aggregate, "a"));
  ASSERT_EQ(users.size(), 2u);
  EXPECT_EQ(users[0].partition_key, "a");
  EXPECT_EQ(users[0].data, "hello");
  EXPECT_EQ(users[0].explicit_hash_key, "");
  EXPECT_EQ(users[0].subsequence_number, 0);
  EXPECT_TRUE(users[0].aggregated);
  EXPECT_EQ(users[1].partition_key, "b");
  EXPECT_EQ(users[1].explicit_hash_key, "12345");
  EXPECT_EQ(users[1].data, "world");
  EXPECT_EQ(users[1].subsequence_number, 1);
}

TEST(KplAggregationTest, OwnEncoderRoundTripsEmptyAndBinaryData) {
  std::vector<UserRecord> records = {{"k1", "", std::string("\0\xff\x01", 3), 0, false},
                                     {"k2", "340282366920938463463374607431768211455", "", 0, false},
                                     {"k1", "", std::string(70000, 'x'), 0, false}};
  ASSERT_OK_AND_ASSIGN(std::vector<UserRecord> users, Deaggregate(AggregateForTesting(records), "outer"));
  ASSERT_EQ(users.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(users[i].partition_key, records[i].partition_key);
    EXPECT_EQ(users[i].explicit_hash_key, records[i].explicit_hash_key);
    EXPECT_EQ(users[i].data, records[i].data);
    EXPECT_EQ(users[i].subsequence_number, static_cast<int64_t>(i));
  }
}

TEST(KplAggregationTest, PlainShortAndBadDigestRecordsPassThroughWhole) {
  for (const std::string& data :
       {std::string("{\"id\":1}"), std::string(""), std::string(reinterpret_cast<const char*>(kKplMagic), 4),
        std::string(reinterpret_cast<const char*>(kKplMagic), 4) + std::string(15, 'z')}) {
    ASSERT_OK_AND_ASSIGN(std::vector<UserRecord> users, Deaggregate(data, "pk"));
    ASSERT_EQ(users.size(), 1u);
    EXPECT_EQ(users[0].data, data);
    EXPECT_EQ(users[0].partition_key, "pk");
    EXPECT_FALSE(users[0].aggregated);
  }
  std::string tampered = AggregateForTesting({{"k", "", "payload", 0, false}});
  tampered[6] ^= 1;  // inside the protobuf: the MD5 no longer matches
  ASSERT_OK_AND_ASSIGN(std::vector<UserRecord> users, Deaggregate(tampered, "pk"));
  ASSERT_EQ(users.size(), 1u);
  EXPECT_EQ(users[0].data, tampered);
}

TEST(KplAggregationTest, MalformedProtobufBehindAValidDigestIsCorruption) {
  struct Case {
    std::string message;
    std::string expected;
  };
  const std::vector<Case> cases = {
      // record 3 refers to partition key 5 of a table of one
      {std::string("\x0a\x01k\x1a\x04\x08\x05\x1a\x00", 9), "partition_key_index 5 is past the table of 1"},
      // record without data
      {std::string("\x0a\x01k\x1a\x02\x08\x00", 7), "lacks its required data"},
      // length running past the end
      {std::string("\x0a\x09k", 3), "declares 9 bytes"},
      // a varint of 11 bytes
      {std::string("\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 12), "varint"},
      // a group wire type
      {std::string("\x0b", 1), "unsupported wire type 3"},
      // field 1 as a varint
      {std::string("\x08\x01", 2), "not length-delimited"},
      // a partition key past Kinesis's limit: records share it by index, so
      // every record would copy it (the fuzzer's output-bound check found it)
      {"\x0a\x81\x08" + std::string(1025, 'k') + std::string("\x1a\x04\x08\x00\x1a\x00", 6),
       "partition key at offset 4 has 1025 bytes, more than Kinesis allows (1024)"},
      {std::string("\x12\x28", 2) + std::string(40, '1'), "explicit hash key at offset 4 has 40 bytes"},
  };
  for (const Case& c : cases) {
    auto users = Deaggregate(Framed(c.message), "pk");
    ASSERT_FALSE(users.ok()) << c.expected;
    EXPECT_EQ(users.status().kind(), ErrorKind::kCorruption);
    EXPECT_NE(users.status().message().find(c.expected), std::string::npos) << users.status().message();
  }
}

TEST(SequenceNumberTest, PatternAndOrderWithoutIntegers) {
  EXPECT_TRUE(IsSequenceNumber("0"));
  EXPECT_TRUE(IsSequenceNumber("49590338271490256608559692538361571095921575989136588898"));
  EXPECT_TRUE(IsSequenceNumber(std::string(129, '9')));
  EXPECT_FALSE(IsSequenceNumber(std::string(130, '9')));
  EXPECT_FALSE(IsSequenceNumber(""));
  EXPECT_FALSE(IsSequenceNumber("007"));
  EXPECT_FALSE(IsSequenceNumber("-1"));
  EXPECT_FALSE(IsSequenceNumber("12a"));
  EXPECT_LT(CompareSequenceNumbers("9", "10"), 0);
  EXPECT_LT(CompareSequenceNumbers("49590338271490256608559692538361571095921575989136588898",
                                   "49590338271490256608559692538361571095921575989136588899"),
            0);
  EXPECT_GT(CompareSequenceNumbers("100000000000000000000000000000000000000000", "99999999999999999999"), 0);
  EXPECT_EQ(CompareSequenceNumbers("123", "123"), 0);
}

Shard MakeShard(std::string id, std::string parent = "", std::string adjacent = "", bool closed = false) {
  Shard shard;
  shard.shard_id = std::move(id);
  shard.parent_shard_id = std::move(parent);
  shard.adjacent_parent_shard_id = std::move(adjacent);
  if (closed) shard.ending_sequence_number = "100";
  return shard;
}

TEST(ShardLineageTest, ChildrenWaitForEveryListedParent) {
  // 0 split into 2 and 3; 3 merged with 1 into 4; 5's parent expired.
  const std::vector<Shard> shards = {MakeShard("s0", "", "", true), MakeShard("s1", "", "", true),
                                     MakeShard("s2", "s0"),         MakeShard("s3", "s0", "", true),
                                     MakeShard("s4", "s3", "s1"),   MakeShard("s5", "expired")};
  ASSERT_OK(ValidateLineage(shards));
  EXPECT_EQ(ReadableShards(shards, {}), (std::vector<std::string>{"s0", "s1", "s5"}));
  EXPECT_EQ(ReadableShards(shards, {"s0"}), (std::vector<std::string>{"s1", "s2", "s3", "s5"}));
  EXPECT_EQ(ReadableShards(shards, {"s0", "s3"}), (std::vector<std::string>{"s1", "s2", "s5"}));
  EXPECT_EQ(ReadableShards(shards, {"s0", "s1", "s3"}), (std::vector<std::string>{"s2", "s4", "s5"}));
}

TEST(ShardLineageTest, CyclesAreCorruption) {
  auto self = ValidateLineage({MakeShard("a", "a")});
  EXPECT_EQ(self.kind(), ErrorKind::kCorruption);
  auto loop = ValidateLineage({MakeShard("a", "c"), MakeShard("b", "a"), MakeShard("c", "", "b")});
  EXPECT_EQ(loop.kind(), ErrorKind::kCorruption);
  EXPECT_NE(loop.message().find("its own ancestor"), std::string::npos) << loop.message();
}

TEST(ProtoReaderTest, ReadsEveryWireType) {
  const std::string bytes("\x08\x96\x01\x11\x01\x00\x00\x00\x00\x00\x00\x00\x1a\x02hi\x25\x02\x00\x00\x00",
                          21);
  ProtoReader reader(bytes);
  ASSERT_OK_AND_ASSIGN(ProtoField a, reader.Next());
  EXPECT_EQ(a.number, 1u);
  EXPECT_EQ(a.varint, 150u);
  ASSERT_OK_AND_ASSIGN(ProtoField b, reader.Next());
  EXPECT_EQ(b.type, WireType::kFixed64);
  EXPECT_EQ(b.varint, 1u);
  ASSERT_OK_AND_ASSIGN(ProtoField c, reader.Next());
  EXPECT_EQ(c.bytes, "hi");
  ASSERT_OK_AND_ASSIGN(ProtoField d, reader.Next());
  EXPECT_EQ(d.type, WireType::kFixed32);
  EXPECT_EQ(d.varint, 2u);
  EXPECT_TRUE(reader.AtEnd());
}

}  // namespace
}  // namespace floe::aws::kinesis
