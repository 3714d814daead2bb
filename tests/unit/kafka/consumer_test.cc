// KafkaConsumer against the Kafka test broker (librdkafka's mock cluster),
// with every record produced by kcat.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <thread>

#include "stream/kafka/kafka_consumer.h"
#include "test_util.h"
#include "unit/kafka/kafka_test_cluster.h"

namespace floe::kafka {
namespace {

using floe::testing::KcatProduce;
using floe::testing::KcatRecord;
using floe::testing::MockKafkaCluster;

TopicPartition TP(const std::string& topic, int32_t partition) {
  return TopicPartition{topic, partition};
}

PartitionStart At(const std::string& topic, int32_t partition, int64_t offset,
                  std::optional<int64_t> stop = std::nullopt) {
  return PartitionStart{TopicPartition{topic, partition}, offset, stop};
}

// What a test saw of one record.
struct Seen {
  int64_t offset;
  std::optional<std::string> key;
  std::optional<std::string> value;
};

class KafkaConsumerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::string reason = floe::testing::KafkaToolsMissingReason(); !reason.empty()) {
      GTEST_SKIP() << "skipped: " << reason;
    }
  }

  void StartCluster(int brokers, const std::vector<std::pair<std::string, int>>& topics) {
    cluster_ = std::make_unique<MockKafkaCluster>(brokers, topics, dir_.File("broker.log"));
    ASSERT_FALSE(cluster_->bootstrap().empty())
        << "the test broker did not start (see " << dir_.File("broker.log") << ")";
  }

  std::unique_ptr<KafkaConsumer> Open(std::vector<std::pair<std::string, std::string>> properties = {}) {
    KafkaConsumerOptions options;
    options.bootstrap_servers = cluster_->bootstrap();
    options.group_id = "floe-test";
    options.request_timeout_ms = 5000;
    // Reconnect quickly after a broker comes back up.
    properties.emplace_back("reconnect.backoff.ms", "50");
    properties.emplace_back("reconnect.backoff.max.ms", "300");
    options.properties = std::move(properties);
    auto consumer = KafkaConsumer::Open(options);
    EXPECT_TRUE(consumer.ok()) << consumer.status().ToString();
    return consumer.ok() ? std::move(consumer).value() : nullptr;
  }

  void Produce(const std::string& topic, int partition, const std::vector<KcatRecord>& records,
               const std::vector<std::string>& headers = {}) {
    std::string error =
        KcatProduce(cluster_->bootstrap(), topic, partition, records, dir_.File("kcat.log"), headers);
    ASSERT_EQ(error, "");
  }

  static std::vector<KcatRecord> Numbered(const std::string& prefix, int first, int count) {
    std::vector<KcatRecord> records;
    for (int i = first; i < first + count; ++i) {
      records.push_back({"k" + std::to_string(i), prefix + std::to_string(i)});
    }
    return records;
  }

  // Fetches until `total` records arrived (or the deadline passed), checking
  // on the way that each partition's ranges meet exactly and that every
  // record lies in its range, in offset order.
  std::map<TopicPartition, std::vector<Seen>> Drain(
      KafkaConsumer& consumer, size_t total, const FetchLimits& limits = {},
      std::chrono::seconds deadline = std::chrono::seconds(30)) {
    std::map<TopicPartition, std::vector<Seen>> seen;
    size_t count = 0;
    auto end = std::chrono::steady_clock::now() + deadline;
    while (count < total && std::chrono::steady_clock::now() < end) {
      auto fetch = consumer.Fetch(limits);
      EXPECT_TRUE(fetch.ok()) << fetch.status().ToString();
      if (!fetch.ok()) break;
      EXPECT_LE(fetch->num_records(), limits.max_records);
      if (fetch->num_records() > 1) {
        EXPECT_LE(fetch->num_bytes(), limits.max_bytes);
      }
      for (auto& range : fetch->partitions) {
        CheckRange(range);
        for (auto& r : range.records) {
          seen[range.partition].push_back(
              {r.offset(), r.key() ? std::optional<std::string>(*r.key()) : std::nullopt,
               r.value() ? std::optional<std::string>(*r.value()) : std::nullopt});
          ++count;
        }
      }
    }
    return seen;
  }

  void CheckRange(const PartitionRecords& range) {
    auto [it, first] = next_from_.try_emplace(range.partition, range.from_offset);
    EXPECT_EQ(range.from_offset, it->second)
        << range.partition.ToString() << ": a gap or an overlap between ranges";
    EXPECT_LE(range.from_offset, range.to_offset);
    int64_t previous = range.from_offset - 1;
    for (const auto& r : range.records) {
      EXPECT_GT(r.offset(), previous);
      EXPECT_LT(r.offset(), range.to_offset);
      EXPECT_EQ(r.partition(), range.partition.partition);
      EXPECT_EQ(r.topic(), range.partition.topic);
      previous = r.offset();
    }
    if (!range.records.empty()) {
      EXPECT_EQ(range.to_offset, range.records.back().offset() + 1);
    }
    it->second = range.to_offset;
  }
  // A new consumer's ranges start over.
  void ResetRanges() { next_from_.clear(); }

  // Appends what a later Drain saw to what an earlier one saw, per partition.
  static void Append(std::map<TopicPartition, std::vector<Seen>>* seen,
                     const std::map<TopicPartition, std::vector<Seen>>& more) {
    for (const auto& [tp, records] : more) {
      auto& into = (*seen)[tp];
      into.insert(into.end(), records.begin(), records.end());
    }
  }

  static void ExpectNumbered(const std::vector<Seen>& seen, const std::string& prefix, int first, int count) {
    ASSERT_EQ(seen.size(), static_cast<size_t>(count));
    for (int i = 0; i < count; ++i) {
      EXPECT_EQ(seen[i].offset, first + i);
      EXPECT_EQ(seen[i].key, "k" + std::to_string(first + i));
      EXPECT_EQ(seen[i].value, prefix + std::to_string(first + i));
    }
  }

  floe::testing::TempDir dir_;
  std::unique_ptr<MockKafkaCluster> cluster_;
  std::map<TopicPartition, int64_t> next_from_;
};

TEST_F(KafkaConsumerTest, MetadataListsTopicsAndMatchesPatterns) {
  StartCluster(3, {{"dbserver1.inventory.customers", 3},
                   {"dbserver1.inventory.orders", 2},
                   {"dbserver1.inventoryX.orders", 1},
                   {"other", 1}});
  auto consumer = Open();
  ASSERT_TRUE(consumer);
  ASSERT_OK_AND_ASSIGN(auto topics, consumer->ListTopics());
  std::vector<std::string> names;
  for (const auto& t : topics) names.push_back(t.name);
  EXPECT_EQ(names, (std::vector<std::string>{"dbserver1.inventory.customers", "dbserver1.inventory.orders",
                                             "dbserver1.inventoryX.orders", "other"}));
  ASSERT_OK_AND_ASSIGN(auto customers, consumer->DescribeTopic("dbserver1.inventory.customers"));
  ASSERT_EQ(customers.partitions.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(customers.partitions[i].partition, i);
    EXPECT_GE(customers.partitions[i].leader, 1);
    EXPECT_OK(customers.partitions[i].error);
  }
  auto missing = consumer->DescribeTopic("nope");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().kind(), ErrorKind::kNotFound);
  EXPECT_NE(missing.status().message().find("nope"), std::string::npos);

  ASSERT_OK_AND_ASSIGN(auto pattern, TopicPattern::Compile("dbserver1\\.inventory\\..*"));
  ASSERT_OK_AND_ASSIGN(auto matched, consumer->MatchTopics(pattern));
  EXPECT_EQ(matched,
            (std::vector<std::string>{"dbserver1.inventory.customers", "dbserver1.inventory.orders"}));

  // A topic created later is found by the next listing.
  ASSERT_EQ(cluster_->Command("topic dbserver1.inventory.products 2"), "ok");
  ASSERT_OK_AND_ASSIGN(matched, consumer->MatchTopics(pattern));
  EXPECT_EQ(matched, (std::vector<std::string>{"dbserver1.inventory.customers", "dbserver1.inventory.orders",
                                               "dbserver1.inventory.products"}));
}

TEST_F(KafkaConsumerTest, WatermarksFollowProducedRecords) {
  StartCluster(1, {{"events", 2}});
  auto consumer = Open();
  ASSERT_TRUE(consumer);
  ASSERT_OK_AND_ASSIGN(auto empty, (consumer->QueryWatermarks({"events", 0})));
  EXPECT_EQ(empty.low, 0);
  EXPECT_EQ(empty.high, 0);
  Produce("events", 1, Numbered("v", 0, 5));
  ASSERT_OK_AND_ASSIGN(auto marks, (consumer->QueryWatermarks({"events", 1})));
  EXPECT_EQ(marks.low, 0);
  EXPECT_EQ(marks.high, 5);
  auto bad = consumer->QueryWatermarks({"events", 7});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("events[7]"), std::string::npos) << bad.status().ToString();
}

TEST_F(KafkaConsumerTest, AssignAtOffsetThenSeekBack) {
  StartCluster(1, {{"t", 1}});
  std::vector<KcatRecord> records = Numbered("value-", 0, 10);
  records[4].value.reset();                // a tombstone
  records[6].key.reset();                  // no key
  records[7].value = "ünïcødé ✓ \n line";  // bytes pass through untouched
  Produce("t", 0, records, {"source=kcat", "trace=42"});
  auto consumer = Open();
  ASSERT_TRUE(consumer);
  ASSERT_OK((consumer->Assign({At("t", 0, 3)})));
  ASSERT_OK_AND_ASSIGN(auto state, (consumer->State({"t", 0})));
  EXPECT_EQ(state.position, 3);

  // The first fetch also shows headers and timestamps.
  ASSERT_OK_AND_ASSIGN(auto fetch,
                       (consumer->Fetch({.max_records = 1, .max_bytes = 1 << 20, .max_wait_ms = 10000})));
  ASSERT_EQ(fetch.partitions.size(), 1u);
  ASSERT_EQ(fetch.partitions[0].records.size(), 1u);
  const KafkaRecord& first = fetch.partitions[0].records[0];
  EXPECT_EQ(first.offset(), 3);
  EXPECT_EQ(fetch.partitions[0].from_offset, 3);
  EXPECT_EQ(fetch.partitions[0].to_offset, 4);
  EXPECT_EQ(first.timestamp_type(), TimestampType::kCreateTime);
  EXPECT_GT(first.timestamp_ms(), 1600000000000);
  auto headers = first.headers();
  ASSERT_EQ(headers.size(), 2u);
  EXPECT_EQ(headers[0].name, "source");
  EXPECT_EQ(headers[0].value, "kcat");
  EXPECT_EQ(headers[1].name, "trace");
  EXPECT_EQ(headers[1].value, "42");
  CheckRange(fetch.partitions[0]);

  auto seen = Drain(*consumer, 6);
  ASSERT_EQ(seen[TP("t", 0)].size(), 6u);
  for (int i = 0; i < 6; ++i) {
    const Seen& s = seen[TP("t", 0)][i];
    EXPECT_EQ(s.offset, 4 + i);
    EXPECT_EQ(s.key, records[4 + i].key);
    EXPECT_EQ(s.value, records[4 + i].value);
  }

  // Redo from 0: the ranges restart there.
  ASSERT_OK((consumer->Seek(At("t", 0, 0))));
  next_from_.clear();
  seen = Drain(*consumer, 10);
  ASSERT_EQ(seen[TP("t", 0)].size(), 10u);
  EXPECT_EQ(seen[TP("t", 0)][0].offset, 0);
  EXPECT_EQ(seen[TP("t", 0)][9].offset, 9);
  EXPECT_EQ(next_from_[TP("t", 0)], 10);

  auto again = consumer->Assign({At("t", 0, 0)});
  EXPECT_EQ(again.kind(), ErrorKind::kInvalidArgument);
}

TEST_F(KafkaConsumerTest, FetchIsBoundedByRecordsAndBytes) {
  StartCluster(1, {{"t", 2}});
  for (int p = 0; p < 2; ++p) {
    std::vector<KcatRecord> records;
    for (int i = 0; i < 300; ++i) {
      // keys "k<i>" and 100-byte values
      std::string value = "p" + std::to_string(p) + "-" + std::to_string(i) + "-";
      value.resize(100, 'x');
      records.push_back({"k" + std::to_string(i), value});
    }
    Produce("t", p, records);
  }
  auto consumer = Open();
  ASSERT_TRUE(consumer);
  ASSERT_OK((consumer->Assign({At("t", 0, 0), At("t", 1, 0)})));

  auto seen = Drain(*consumer, 150, {.max_records = 7, .max_bytes = 1 << 20, .max_wait_ms = 2000});
  size_t got = seen[TP("t", 0)].size() + seen[TP("t", 1)].size();
  EXPECT_GE(got, 150u);
  // 250 bytes hold two records of ~103 bytes; a record larger than the
  // limit still comes alone.
  seen = Drain(*consumer, 600 - got, {.max_records = 1000, .max_bytes = 250, .max_wait_ms = 2000});
  ASSERT_OK_AND_ASSIGN(auto fetch,
                       (consumer->Fetch({.max_records = 1000, .max_bytes = 1, .max_wait_ms = 100})));
  EXPECT_EQ(fetch.num_records(), 0);  // everything was returned already

  // Over the whole test each partition returned 0..299 exactly once.
  EXPECT_EQ(next_from_[TP("t", 0)], 300);
  EXPECT_EQ(next_from_[TP("t", 1)], 300);
}

TEST_F(KafkaConsumerTest, PerPartitionLimitLetsOtherPartitionsFill) {
  StartCluster(1, {{"t", 3}});
  for (int p = 0; p < 3; ++p) Produce("t", p, Numbered("v", 0, 40));
  auto consumer = Open();
  ASSERT_TRUE(consumer);
  ASSERT_OK((consumer->Assign({At("t", 0, 0), At("t", 1, 0), At("t", 2, 0)})));
  std::map<TopicPartition, std::vector<Seen>> seen;
  auto end = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  size_t count = 0;
  while (count < 120 && std::chrono::steady_clock::now() < end) {
    ASSERT_OK_AND_ASSIGN(auto fetch, (consumer->Fetch({.max_records = 1000,
                                                       .max_bytes = 1 << 20,
                                                       .max_records_per_partition = 6,
                                                       .max_wait_ms = 1000})));
    for (auto& range : fetch.partitions) {
      EXPECT_LE(range.records.size(), 6u);
      CheckRange(range);
      for (auto& r : range.records) {
        seen[range.partition].push_back({r.offset(), std::string(*r.key()), std::string(*r.value())});
        ++count;
      }
    }
  }
  for (int p = 0; p < 3; ++p) ExpectNumbered(seen[TP("t", p)], "v", 0, 40);
}

TEST_F(KafkaConsumerTest, BytesLimitHoldsRecordsForTheNextFetch) {
  StartCluster(1, {{"t", 1}});
  Produce("t", 0, Numbered("v", 0, 50));
  auto consumer = Open();
  ASSERT_TRUE(consumer);
  ASSERT_OK((consumer->Assign({At("t", 0, 0)})));
  std::vector<Seen> all;
  auto end = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (all.size() < 50 && std::chrono::steady_clock::now() < end) {
    ASSERT_OK_AND_ASSIGN(auto fetch,
                         (consumer->Fetch({.max_records = 1000, .max_bytes = 10, .max_wait_ms = 1000})));
    // "k1"+"v1" = 4 bytes, "k10"+"v10" = 6: at most two records fit 10 bytes.
    EXPECT_LE(fetch.num_records(), 2);
    for (auto& range : fetch.partitions) {
      CheckRange(range);
      for (auto& r : range.records)
        all.push_back({r.offset(), std::string(*r.key()), std::string(*r.value())});
    }
  }
  ExpectNumbered(all, "v", 0, 50);
}

TEST_F(KafkaConsumerTest, LogicalStartOffsetsResolveToAbsoluteOnes) {
  StartCluster(1, {{"t", 2}});
  Produce("t", 0, Numbered("old", 0, 4));
  Produce("t", 1, Numbered("old", 0, 4));
  auto consumer = Open();
  ASSERT_TRUE(consumer);
  ASSERT_OK((consumer->Assign({At("t", 0, kOffsetBeginning), At("t", 1, kOffsetEnd)})));
  ASSERT_OK_AND_ASSIGN(auto s0, (consumer->State({"t", 0})));
  ASSERT_OK_AND_ASSIGN(auto s1, (consumer->State({"t", 1})));
  EXPECT_EQ(s0.position, 0);
  EXPECT_EQ(s1.position, 4);
  Produce("t", 1, Numbered("new", 4, 3));
  auto seen = Drain(*consumer, 7);
  ExpectNumbered(seen[TP("t", 0)], "old", 0, 4);
  ExpectNumbered(seen[TP("t", 1)], "new", 4, 3);
}

// A fresh consumer's assigned partitions fetch at once: librdkafka used to
// learn their topic's metadata only at its scan of unknown topics, once a
// second, so about two fresh consumers in three got their first records a
// second late. Three in a row, each well under that second (the scan
// interval, not a speed bound: a fetch of ten records takes milliseconds).
TEST_F(KafkaConsumerTest, AFreshConsumerFetchesWithoutWaitingForTheTopicScan) {
  constexpr int kPartitions = 16;
  StartCluster(1, {{"t", kPartitions}});
  for (int partition = 0; partition < kPartitions; ++partition) Produce("t", partition, Numbered("r", 0, 10));
  for (int round = 0; round < 3; ++round) {
    auto consumer = Open();
    ASSERT_TRUE(consumer);
    // Connected first, as floe's consumers are by the time they assign: a
    // topic that arrives while librdkafka connects is in its first request.
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    const auto start = std::chrono::steady_clock::now();
    std::vector<PartitionStart> starts;
    for (int partition = 0; partition < kPartitions; ++partition) starts.push_back(At("t", partition, 0));
    ASSERT_OK(consumer->Assign(starts));
    ResetRanges();
    auto seen = Drain(*consumer, 10 * kPartitions);
    const auto waited =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
    for (int partition = 0; partition < kPartitions; ++partition) {
      ExpectNumbered(seen[TP("t", partition)], "r", 0, 10);
    }
    EXPECT_LT(waited.count(), 800) << "consumer " << round << " waited for librdkafka's topic scan";
  }
}

TEST_F(KafkaConsumerTest, StopOffsetEndsAPartition) {
  StartCluster(1, {{"t", 2}});
  Produce("t", 0, Numbered("v", 0, 10));
  Produce("t", 1, Numbered("v", 0, 3));
  auto consumer = Open();
  ASSERT_TRUE(consumer);
  ASSERT_OK((consumer->Assign({At("t", 0, 2, 6), At("t", 1, 0, 3)})));
  EXPECT_FALSE(consumer->AllReachedStop());
  auto seen = Drain(*consumer, 7);
  ExpectNumbered(seen[TP("t", 0)], "v", 2, 4);
  ExpectNumbered(seen[TP("t", 1)], "v", 0, 3);
  EXPECT_TRUE(consumer->AllReachedStop());
  ASSERT_OK_AND_ASSIGN(auto state, (consumer->State({"t", 0})));
  EXPECT_TRUE(state.reached_stop);
  EXPECT_EQ(state.position, 6);
  // Records past the stop are never returned, even when more arrive.
  Produce("t", 1, Numbered("v", 3, 2));
  ASSERT_OK_AND_ASSIGN(auto fetch,
                       (consumer->Fetch({.max_records = 100, .max_bytes = 1 << 20, .max_wait_ms = 1500})));
  EXPECT_EQ(fetch.num_records(), 0);
  // A stop at the start position is reached at once.
  ASSERT_OK((consumer->Seek(At("t", 0, 4, 4))));
  ASSERT_OK_AND_ASSIGN(state, (consumer->State({"t", 0})));
  EXPECT_TRUE(state.reached_stop);
  // Sought again with a later stop, a stopped partition fetches again.
  ASSERT_OK((consumer->Seek(At("t", 1, 3, 5))));
  next_from_.clear();
  seen = Drain(*consumer, 2);
  ExpectNumbered(seen[TP("t", 1)], "v", 3, 2);
  EXPECT_TRUE(consumer->AllReachedStop());
}

TEST_F(KafkaConsumerTest, PausedPartitionsWaitAndResumeWhereTheyWere) {
  StartCluster(1, {{"t", 2}});
  Produce("t", 0, Numbered("a", 0, 20));
  Produce("t", 1, Numbered("b", 0, 20));
  auto consumer = Open();
  ASSERT_TRUE(consumer);
  ASSERT_OK((consumer->Assign({At("t", 0, 0), At("t", 1, 0)})));
  // Take a few records of each, so both partitions have prefetched data.
  auto first = Drain(*consumer, 10, {.max_records = 10, .max_bytes = 1 << 20, .max_wait_ms = 5000});
  ASSERT_OK((consumer->Pause({{"t", 0}})));
  ASSERT_OK((consumer->Pause({{"t", 0}})));  // idempotent
  ASSERT_OK_AND_ASSIGN(auto state, (consumer->State({"t", 0})));
  EXPECT_TRUE(state.paused);
  Produce("t", 0, Numbered("a", 20, 10));
  Produce("t", 1, Numbered("b", 20, 10));
  const size_t p1_left = 30 - first[TP("t", 1)].size();
  auto while_paused =
      Drain(*consumer, p1_left, {.max_records = 1000, .max_bytes = 1 << 20, .max_wait_ms = 1000},
            std::chrono::seconds(20));
  EXPECT_TRUE(while_paused[TP("t", 0)].empty()) << "a paused partition returned records";
  EXPECT_EQ(while_paused[TP("t", 1)].size(), p1_left);
  // Nothing more arrives from the paused partition, whatever the wait.
  ASSERT_OK_AND_ASSIGN(auto idle,
                       (consumer->Fetch({.max_records = 1000, .max_bytes = 1 << 20, .max_wait_ms = 1500})));
  EXPECT_EQ(idle.num_records(), 0);

  ASSERT_OK((consumer->Resume({{"t", 0}})));
  const size_t p0_left = 30 - first[TP("t", 0)].size();
  Append(&first, while_paused);
  Append(&first, Drain(*consumer, p0_left));
  ExpectNumbered(first[TP("t", 0)], "a", 0, 30);
  ExpectNumbered(first[TP("t", 1)], "b", 0, 30);
}

TEST_F(KafkaConsumerTest, SeekKeepsAPauseAndDropsHeldRecords) {
  StartCluster(1, {{"t", 1}});
  Produce("t", 0, Numbered("v", 0, 30));
  auto consumer = Open();
  ASSERT_TRUE(consumer);
  ASSERT_OK((consumer->Assign({At("t", 0, 0)})));
  // A tight byte limit leaves records held.
  auto first = Drain(*consumer, 1, {.max_records = 100, .max_bytes = 1, .max_wait_ms = 5000});
  ASSERT_OK_AND_ASSIGN(auto state, (consumer->State({"t", 0})));
  EXPECT_GT(state.held_records, 0);
  ASSERT_OK((consumer->Pause({{"t", 0}})));
  ASSERT_OK((consumer->Seek(At("t", 0, 10))));
  ASSERT_OK_AND_ASSIGN(state, (consumer->State({"t", 0})));
  EXPECT_EQ(state.held_records, 0);
  EXPECT_TRUE(state.paused);
  EXPECT_EQ(state.position, 10);
  ASSERT_OK_AND_ASSIGN(auto idle,
                       (consumer->Fetch({.max_records = 100, .max_bytes = 1 << 20, .max_wait_ms = 1000})));
  EXPECT_EQ(idle.num_records(), 0);
  ASSERT_OK((consumer->Resume({{"t", 0}})));
  next_from_.clear();
  auto seen = Drain(*consumer, 20);
  ExpectNumbered(seen[TP("t", 0)], "v", 10, 20);
}

TEST_F(KafkaConsumerTest, BrokerDownThenUpLosesAndRepeatsNothing) {
  StartCluster(1, {{"t", 1}});
  Produce("t", 0, Numbered("v", 0, 10));
  auto consumer = Open();
  ASSERT_TRUE(consumer);
  ASSERT_OK((consumer->Assign({At("t", 0, 0)})));
  auto seen = Drain(*consumer, 10);
  ASSERT_EQ(seen[TP("t", 0)].size(), 10u);

  ASSERT_EQ(cluster_->Command("down 1"), "ok");
  // While the only broker is down, fetches keep working: no records, and
  // the trouble reported as retryable errors.
  bool saw_retryable = false;
  auto end = std::chrono::steady_clock::now() + std::chrono::seconds(3);
  while (std::chrono::steady_clock::now() < end) {
    ASSERT_OK_AND_ASSIGN(auto fetch,
                         (consumer->Fetch({.max_records = 100, .max_bytes = 1 << 20, .max_wait_ms = 200})));
    EXPECT_EQ(fetch.num_records(), 0);
    for (const auto& e : fetch.errors) {
      EXPECT_TRUE(e.retryable()) << e.ToString();
      EXPECT_NE(e.message().find(cluster_->bootstrap()), std::string::npos) << e.ToString();
      saw_retryable = true;
    }
  }
  EXPECT_TRUE(saw_retryable) << "no error was reported while the broker was down";
  auto marks = consumer->QueryWatermarks({"t", 0});
  EXPECT_FALSE(marks.ok());

  ASSERT_EQ(cluster_->Command("up 1"), "ok");
  Produce("t", 0, Numbered("v", 10, 10));
  Append(&seen, Drain(*consumer, 10));
  ExpectNumbered(seen[TP("t", 0)], "v", 0, 20);
}

TEST_F(KafkaConsumerTest, LeaderBrokerDownMovesToAnotherBroker) {
  StartCluster(3, {{"t", 3}});
  for (int p = 0; p < 3; ++p) Produce("t", p, Numbered("v", 0, 10));
  auto consumer = Open();
  ASSERT_TRUE(consumer);
  ASSERT_OK((consumer->Assign({At("t", 0, 0), At("t", 1, 0), At("t", 2, 0)})));
  auto seen = Drain(*consumer, 15, {.max_records = 5, .max_bytes = 1 << 20, .max_wait_ms = 5000});
  ASSERT_OK_AND_ASSIGN(auto topic, consumer->DescribeTopic("t"));
  const int32_t leader = topic.partitions[0].leader;
  // Take partition 0's leader down and hand its partitions to another broker.
  ASSERT_EQ(cluster_->Command("down " + std::to_string(leader)), "ok");
  const int32_t other = leader % 3 + 1;
  for (int p = 0; p < 3; ++p) {
    if (topic.partitions[p].leader == leader) {
      ASSERT_EQ(cluster_->Command("leader t " + std::to_string(p) + " " + std::to_string(other)), "ok");
    }
  }
  for (int p = 0; p < 3; ++p) Produce("t", p, Numbered("v", 10, 10));
  Append(&seen, Drain(*consumer, 60 - 15));
  for (int p = 0; p < 3; ++p) ExpectNumbered(seen[TP("t", p)], "v", 0, 20);
}

TEST_F(KafkaConsumerTest, InjectedFetchErrorsAreRetriedWithoutLossOrRepeats) {
  StartCluster(1, {{"t", 2}});
  for (int p = 0; p < 2; ++p) Produce("t", p, Numbered("v", 0, 40));
  auto consumer = Open();
  ASSERT_TRUE(consumer);
  ASSERT_OK((consumer->Assign({At("t", 0, 0), At("t", 1, 0)})));
  auto seen = Drain(*consumer, 10, {.max_records = 10, .max_bytes = 1 << 20, .max_wait_ms = 5000});
  // Leader changes, a lost connection, a storage error and timeouts on the next fetches.
  ASSERT_EQ(cluster_->Command("errors Fetch 6 NOT_LEADER_FOR_PARTITION _TRANSPORT KAFKA_STORAGE_ERROR "
                              "REQUEST_TIMED_OUT UNKNOWN_TOPIC_OR_PART _TRANSPORT"),
            "ok");
  for (int p = 0; p < 2; ++p) Produce("t", p, Numbered("v", 40, 20));
  Append(&seen, Drain(*consumer, 120 - 10));
  for (int p = 0; p < 2; ++p) ExpectNumbered(seen[TP("t", p)], "v", 0, 60);
}

TEST_F(KafkaConsumerTest, InjectedListOffsetsErrorsAreReported) {
  StartCluster(1, {{"t", 1}});
  Produce("t", 0, Numbered("v", 0, 3));
  auto consumer = Open();
  ASSERT_TRUE(consumer);
  ASSERT_EQ(cluster_->Command("errors ListOffsets 1 TOPIC_AUTHORIZATION_FAILED"), "ok");
  auto denied = consumer->QueryWatermarks({"t", 0});
  ASSERT_FALSE(denied.ok());
  EXPECT_FALSE(denied.status().retryable()) << denied.status().ToString();
  EXPECT_NE(denied.status().message().find("t[0]"), std::string::npos) << denied.status().ToString();

  ASSERT_EQ(cluster_->Command("errors ListOffsets 1000 NOT_LEADER_FOR_PARTITION"), "ok");
  auto moved = consumer->QueryWatermarks({"t", 0});
  ASSERT_FALSE(moved.ok());
  EXPECT_TRUE(moved.status().retryable()) << moved.status().ToString();
  ASSERT_EQ(cluster_->Command("clear ListOffsets"), "ok");

  // Once the errors are gone the same call succeeds.
  ASSERT_OK_AND_ASSIGN(auto marks, (consumer->QueryWatermarks({"t", 0})));
  EXPECT_EQ(marks.high, 3);
}

TEST_F(KafkaConsumerTest, OffsetOutOfRangeIsAnErrorNotASilentJump) {
  StartCluster(1, {{"t", 1}});
  Produce("t", 0, Numbered("v", 0, 5));
  auto consumer = Open();
  ASSERT_TRUE(consumer);
  ASSERT_OK((consumer->Assign({At("t", 0, 100)})));
  Status error;
  auto end = std::chrono::steady_clock::now() + std::chrono::seconds(15);
  while (error.ok() && std::chrono::steady_clock::now() < end) {
    ASSERT_OK_AND_ASSIGN(auto fetch,
                         (consumer->Fetch({.max_records = 100, .max_bytes = 1 << 20, .max_wait_ms = 500})));
    EXPECT_EQ(fetch.num_records(), 0);
    for (const auto& e : fetch.errors) {
      if (e.kind() == ErrorKind::kOutOfRange) error = e;
    }
  }
  ASSERT_FALSE(error.ok()) << "no out-of-range error";
  EXPECT_NE(error.message().find("t[0]"), std::string::npos) << error.ToString();
  EXPECT_NE(error.message().find("100"), std::string::npos) << error.ToString();
  EXPECT_FALSE(error.retryable());
  ASSERT_OK_AND_ASSIGN(auto state, (consumer->State({"t", 0})));
  EXPECT_EQ(state.error.kind(), ErrorKind::kOutOfRange);
  // Seeking to a retained offset clears it.
  ASSERT_OK((consumer->Seek(At("t", 0, 1))));
  auto seen = Drain(*consumer, 4);
  ExpectNumbered(seen[TP("t", 0)], "v", 1, 4);
}

TEST_F(KafkaConsumerTest, AdvisoryCommitIsVisibleToAnotherClient) {
  StartCluster(1, {{"t", 2}});
  Produce("t", 0, Numbered("v", 0, 10));
  Produce("t", 1, Numbered("v", 0, 10));
  auto consumer = Open();
  ASSERT_TRUE(consumer);
  ASSERT_OK((consumer->Assign({At("t", 0, 0), At("t", 1, 0)})));
  auto seen = Drain(*consumer, 20);
  ASSERT_OK((consumer->CommitOffsets({{{"t", 0}, 7}, {{"t", 1}, 10}})));
  ASSERT_OK_AND_ASSIGN(auto committed, (consumer->CommittedOffsets({{"t", 0}, {"t", 1}})));
  ASSERT_EQ(committed.size(), 2u);
  EXPECT_EQ(committed[0].second, 7);
  EXPECT_EQ(committed[1].second, 10);

  // kcat, joining the same group, starts where the commit says: partition 0
  // at offset 7, partition 1 at its end.
  std::string output;
  int rc = floe::testing::RunProgram({"kcat", "-C", "-q", "-b", cluster_->bootstrap(), "-G", "floe-test",
                                      "-X", "auto.offset.reset=earliest", "-e", "-f", "%p:%o\\n", "t"},
                                     "", dir_.File("kcat-group.log"), &output);
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(output, "0:7\n0:8\n0:9\n");

  // A group that never committed has no offsets.
  KafkaConsumerOptions options;
  options.bootstrap_servers = cluster_->bootstrap();
  options.group_id = "floe-other";
  ASSERT_OK_AND_ASSIGN(auto other, KafkaConsumer::Open(options));
  ASSERT_OK_AND_ASSIGN(auto none, (other->CommittedOffsets({{"t", 0}})));
  EXPECT_EQ(none[0].second, std::nullopt);
}

TEST_F(KafkaConsumerTest, InjectedCommitErrorIsReported) {
  StartCluster(1, {{"t", 1}});
  auto consumer = Open();
  ASSERT_TRUE(consumer);
  ASSERT_EQ(cluster_->Command("errors OffsetCommit 1 GROUP_AUTHORIZATION_FAILED"), "ok");
  Status status = consumer->CommitOffsets({{{"t", 0}, 0}});
  ASSERT_FALSE(status.ok());
  EXPECT_FALSE(status.retryable());
  EXPECT_NE(status.message().find("floe-test"), std::string::npos) << status.ToString();
  EXPECT_OK((consumer->CommitOffsets({{{"t", 0}, 0}})));
}

TEST_F(KafkaConsumerTest, UnassignedPartitionsStopReturningRecords) {
  StartCluster(1, {{"t", 2}});
  Produce("t", 0, Numbered("v", 0, 5));
  Produce("t", 1, Numbered("v", 0, 5));
  auto consumer = Open();
  ASSERT_TRUE(consumer);
  ASSERT_OK((consumer->Assign({At("t", 0, 0), At("t", 1, 0)})));
  ASSERT_OK((consumer->Unassign({{"t", 1}})));
  EXPECT_EQ(consumer->Assignment(), (std::vector<TopicPartition>{{"t", 0}}));
  auto seen = Drain(*consumer, 5);
  ExpectNumbered(seen[TP("t", 0)], "v", 0, 5);
  ASSERT_OK_AND_ASSIGN(auto fetch,
                       (consumer->Fetch({.max_records = 100, .max_bytes = 1 << 20, .max_wait_ms = 1000})));
  EXPECT_EQ(fetch.num_records(), 0);
  EXPECT_EQ(consumer->Unassign({{"t", 1}}).kind(), ErrorKind::kInvalidArgument);
}

TEST(KafkaConsumerOptionsTest, PropertiesPassThroughExceptManagedOnes) {
  KafkaConsumerOptions options;
  options.bootstrap_servers = "127.0.0.1:1";
  options.group_id = "g";
  options.properties = {
      {"security.protocol", "plaintext"}, {"fetch.wait.max.ms", "50"}, {"socket.timeout.ms", "100"}};
  EXPECT_OK(KafkaConsumer::Open(options));

  options.properties = {{"enable.auto.commit", "true"}};
  auto managed = KafkaConsumer::Open(options);
  ASSERT_FALSE(managed.ok());
  EXPECT_EQ(managed.status().kind(), ErrorKind::kInvalidArgument);
  EXPECT_NE(managed.status().message().find("enable.auto.commit"), std::string::npos);

  options.properties = {{"no.such.property", "1"}};
  auto unknown = KafkaConsumer::Open(options);
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("no.such.property"), std::string::npos);

  // librdkafka quotes a rejected value; a secret must not reach the message.
  options.properties = {{"security.protocol", "hunter2-secret"}};
  auto secret = KafkaConsumer::Open(options);
  ASSERT_FALSE(secret.ok());
  EXPECT_NE(secret.status().message().find("security.protocol"), std::string::npos);
  EXPECT_EQ(secret.status().message().find("hunter2-secret"), std::string::npos)
      << secret.status().ToString();
  // Checked when the client is created, with the value in the message.
  options.properties = {{"security.protocol", "sasl_plaintext"}, {"sasl.mechanism", "hunter2-secret"}};
  secret = KafkaConsumer::Open(options);
  ASSERT_FALSE(secret.ok());
  EXPECT_EQ(secret.status().message().find("hunter2-secret"), std::string::npos)
      << secret.status().ToString();

  options.properties = {};
  options.group_id = "";
  EXPECT_EQ(KafkaConsumer::Open(options).status().kind(), ErrorKind::kInvalidArgument);
}

// OAUTHBEARER tokens from floe (MSK IAM): librdkafka asks for one when the
// client starts, from its background thread, without any Fetch; a provider
// that fails is reported by Fetch as an authentication error. No broker is
// needed for either (the mock cluster speaks no SASL).
TEST(KafkaConsumerOAuthTest, TheProviderIsAskedAtStartAndItsFailureIsReported) {
  KafkaConsumerOptions options;
  options.bootstrap_servers = "127.0.0.1:1";
  options.group_id = "g";
  options.properties = {{"security.protocol", "sasl_plaintext"}, {"sasl.mechanism", "OAUTHBEARER"}};
  auto calls = std::make_shared<std::atomic<int>>(0);
  options.oauth_bearer_token = [calls]() -> Result<OAuthBearerToken> {
    ++*calls;
    const int64_t now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                               std::chrono::system_clock::now().time_since_epoch())
                               .count();
    return OAuthBearerToken{"aHR0cHM6Ly9rYWZrYS51cy1lYXN0LTEuYW1hem9uYXdzLmNvbS8", now_ms + 900000, "floe"};
  };
  {
    ASSERT_OK_AND_ASSIGN(auto consumer, KafkaConsumer::Open(options));
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (calls->load() == 0 && std::chrono::steady_clock::now() < end) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    EXPECT_EQ(calls->load(), 1) << "the token provider was not asked (or asked again at once)";
  }

  options.oauth_bearer_token = []() -> Result<OAuthBearerToken> {
    return Status::InvalidArgument("MSK IAM authentication needs AWS credentials");
  };
  ASSERT_OK_AND_ASSIGN(auto failing, KafkaConsumer::Open(options));
  bool reported = false;
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!reported && std::chrono::steady_clock::now() < end) {
    ASSERT_OK_AND_ASSIGN(auto fetch,
                         (failing->Fetch({.max_records = 10, .max_bytes = 1 << 20, .max_wait_ms = 200})));
    for (const auto& e : fetch.errors) {
      if (e.message().find("needs AWS credentials") != std::string::npos) reported = true;
    }
  }
  EXPECT_TRUE(reported) << "the provider's failure never reached Fetch";
}

}  // namespace
}  // namespace floe::kafka
