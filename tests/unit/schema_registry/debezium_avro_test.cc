// The pieces below phase 2's Avro path together: Debezium records written by
// tests/tools/debezium.mjs (avsc, Confluent framing, schemas registered in the
// registry stub) and produced by kcat are read with KafkaConsumer, unframed,
// their writer schemas fetched with SchemaRegistryClient and mapped to floe
// types through their Connect schemas; each datum decodes completely with
// floe's Avro decoder.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "formats/avro/decoder.h"
#include "formats/connect/confluent_framing.h"
#include "formats/connect/connect_avro_schema.h"
#include "formats/connect/connect_types.h"
#include "stream/kafka/kafka_consumer.h"
#include "stream/schema_registry/schema_registry_client.h"
#include "test_util.h"
#include "unit/kafka/kafka_test_cluster.h"

namespace floe {
namespace {

TEST(DebeziumAvroTest, RecordsDecodeThroughRegistryAndConnectSchemas) {
  if (std::string reason = floe::testing::KafkaToolsMissingReason(); !reason.empty()) GTEST_SKIP() << reason;
  floe::testing::TempDir dir;
  const std::string topic = "dbserver1.inventory.customers";
  floe::testing::MockKafkaCluster cluster(1, {{topic, 3}}, dir.File("broker.log"));
  ASSERT_FALSE(cluster.bootstrap().empty());
  floe::testing::NodeProcess stub;
  auto port = stub.Start({std::string(FLOE_SOURCE_DIR) + "/tests/tools/schema_registry_stub.mjs"},
                         dir.File("stub.log"));
  if (!port) GTEST_SKIP() << stub.error();
  const std::string registry = "http://127.0.0.1:" + std::to_string(*port);

  std::string summary_text;
  int rc =
      floe::testing::RunProgram({"node",         std::string(FLOE_SOURCE_DIR) + "/tests/tools/debezium.mjs",
                                 "--bootstrap",  cluster.bootstrap(),
                                 "--table",      "customers",
                                 "--topic",      topic,
                                 "--format",     "avro",
                                 "--registry",   registry,
                                 "--seed",       "5",
                                 "--changes",    "200",
                                 "--partitions", "3",
                                 "--dump",       dir.File("dump.jsonl")},
                                "", dir.File("debezium.log"), &summary_text);
  ASSERT_EQ(rc, 0) << "see " << dir.File("debezium.log");
  auto summary = nlohmann::json::parse(summary_text);
  const int64_t total = summary["records"].get<int64_t>();
  ASSERT_GT(total, 200);
  // The dump says what each record is: op per partition and offset.
  std::map<std::pair<int32_t, int64_t>, nlohmann::json> dump;
  std::ifstream dump_file(dir.File("dump.jsonl"));
  for (std::string line; std::getline(dump_file, line);) {
    auto d = nlohmann::json::parse(line);
    dump[{d["partition"].get<int32_t>(), d["offset"].get<int64_t>()}] = d;
  }
  ASSERT_EQ(static_cast<int64_t>(dump.size()), total);

  kafka::KafkaConsumerOptions options;
  options.bootstrap_servers = cluster.bootstrap();
  options.group_id = "floe-debezium-test";
  ASSERT_OK_AND_ASSIGN(auto consumer, kafka::KafkaConsumer::Open(options));
  std::vector<kafka::PartitionStart> starts;
  for (int32_t p = 0; p < 3; ++p) {
    ASSERT_OK_AND_ASSIGN(auto marks, consumer->QueryWatermarks(kafka::TopicPartition{topic, p}));
    starts.push_back({{topic, p}, kafka::kOffsetBeginning, marks.high});
  }
  ASSERT_OK(consumer->Assign(starts));
  schema_registry::SchemaRegistryOptions registry_options;
  registry_options.url = registry;
  ASSERT_OK_AND_ASSIGN(auto client, schema_registry::SchemaRegistryClient::Open(registry_options));

  int64_t seen = 0;
  std::map<std::string, int> ops;
  std::set<std::string> row_schemas;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!consumer->AllReachedStop() && std::chrono::steady_clock::now() < deadline) {
    ASSERT_OK_AND_ASSIGN(auto fetch, consumer->Fetch({}));
    for (const auto& range : fetch.partitions) {
      for (const auto& record : range.records) {
        ++seen;
        const auto& expected = dump.at({record.partition(), record.offset()});
        ASSERT_TRUE(record.key().has_value());
        ASSERT_OK_AND_ASSIGN(auto key_frame, connect::ParseConfluentFrame(*record.key()));
        ASSERT_OK_AND_ASSIGN(auto key_schema, client->GetSchema(key_frame.schema_id));
        EXPECT_EQ(key_schema->avro->root().full_name, topic + ".Key");
        if (!record.value()) {  // a tombstone
          EXPECT_TRUE(expected["op"].is_null());
          ++ops["tombstone"];
          continue;
        }
        ASSERT_OK_AND_ASSIGN(auto frame, connect::ParseConfluentFrame(*record.value()));
        ASSERT_OK_AND_ASSIGN(auto schema, client->GetSchema(frame.schema_id));
        ASSERT_TRUE(schema->avro.has_value());
        ASSERT_OK_AND_ASSIGN(auto envelope, connect::ConnectSchemaFromAvro(schema->avro->root()));
        EXPECT_EQ(envelope.name, topic + ".Envelope");
        ASSERT_OK_AND_ASSIGN(Schema row, connect::FloeSchemaOf(envelope.Field("after")->schema, "after"));
        row_schemas.insert(SchemaToString(row));

        avro::AvroDecoder decoder(std::span<const uint8_t>(
            reinterpret_cast<const uint8_t*>(frame.datum.data()), frame.datum.size()));
        avro::AvroValue value;
        ASSERT_OK(decoder.Decode(schema->avro->root(), &value));
        EXPECT_EQ(decoder.remaining(), 0u);
        const int op_index = schema->avro->root().FieldIndex("op");
        const std::string op = value.field(static_cast<size_t>(op_index)).string();
        EXPECT_EQ(op, expected["op"].get<std::string>());
        ++ops[op];
      }
    }
  }
  EXPECT_EQ(seen, total);
  for (const char* op : {"r", "c", "u", "d", "tombstone"}) EXPECT_GT(ops[op], 0) << op;
  // Two schema versions: level widened from int16 to int32, phone added.
  ASSERT_EQ(row_schemas.size(), 2u);
  EXPECT_NE(row_schemas.begin()->find("level: int"), std::string::npos);
  bool widened = false;
  for (const auto& s : row_schemas) {
    if (s.find("phone: string") != std::string::npos && s.find("level: int32") != std::string::npos)
      widened = true;
  }
  EXPECT_TRUE(widened) << *row_schemas.begin() << "\n" << *row_schemas.rbegin();
  // Two key/value schema pairs were fetched once each, and one key schema.
  EXPECT_LE(client->requests_sent(), 3);
}

}  // namespace
}  // namespace floe
