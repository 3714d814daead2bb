// [source] topic_routes (issue 16): the stream names of routed tables, the
// route field read from Debezium JSON (with and without the Connect
// envelope), plain events and Confluent Avro, and the record filter: each
// table keeps its records, the route's first table alone keeps what no table
// claims, by on_unrouted.
#include "ingest/stream/kafka_topic_routes.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "formats/avro/encoder.h"
#include "formats/connect/confluent_framing.h"
#include "ingest/stream/kafka_record_origin.h"
#include "test_util.h"

namespace floe::ingest {
namespace {

using ::testing::HasSubstr;

const std::vector<std::string> kSourceTable = {"source", "table"};

StreamRecord Record(int64_t offset, std::optional<std::string> value) {
  StreamRecord record;
  record.position = std::to_string(offset);
  record.key = "k";
  record.value = std::move(value);
  return record;
}

std::string Debezium(const std::string& table, int id) {
  return R"({"before":null,"after":{"id":)" + std::to_string(id) +
         R"(},"source":{"db":"inventory","table":")" + table + R"("},"op":"c"})";
}

std::string Wrapped(const std::string& payload) {
  return R"({"schema":{"type":"struct","fields":[]},"payload":)" + payload + "}";
}

TEST(KafkaTopicRoutesTest, RoutedTopicsAreOneStreamPerTable) {
  KafkaSourceConfig config;
  config.topic_routes["db.all"] = {kSourceTable, {"customers", "orders"}, UnroutedRecordPolicy::kDeadLetter};
  config.topic_tables["app.v2.clicks"] = "clicks_v2";
  auto routed = KafkaTableStreams(config, "db.all");
  ASSERT_EQ(routed.size(), 2u);
  EXPECT_EQ(routed[0].stream, "db.all@customers");
  EXPECT_EQ(routed[0].table, "customers");
  EXPECT_EQ(routed[1].stream, "db.all@orders");
  auto plain = KafkaTableStreams(config, "app.v2.clicks");
  ASSERT_EQ(plain.size(), 1u);
  EXPECT_EQ(plain[0].stream, "app.v2.clicks");
  EXPECT_EQ(plain[0].table, "clicks_v2");
  EXPECT_EQ(KafkaTopicOfStream("db.all@orders"), "db.all");
  EXPECT_EQ(KafkaTopicOfStream("db.all"), "db.all");
  EXPECT_FALSE(KafkaRouteOf(config, "app.v2.clicks", "clicks_v2"));
  auto route = KafkaRouteOf(config, "db.all@orders", "orders");
  ASSERT_TRUE(route);
  EXPECT_EQ(route->table, "orders");
  EXPECT_EQ(route->field, kSourceTable);
}

TEST(KafkaTopicRoutesTest, JsonFieldsAreReadWithAndWithoutTheConnectEnvelope) {
  RouteField plain = JsonRouteField(Debezium("orders", 1), kSourceTable);
  EXPECT_EQ(plain.kind, RouteField::Kind::kValue);
  EXPECT_EQ(plain.text, "orders");
  RouteField wrapped = JsonRouteField(Wrapped(Debezium("customers", 1)), kSourceTable);
  EXPECT_EQ(wrapped.kind, RouteField::Kind::kValue);
  EXPECT_EQ(wrapped.text, "customers");
  RouteField event = JsonRouteField(R"({"type":"click","at":5})", {"type"});
  EXPECT_EQ(event.text, "click");

  RouteField missing = JsonRouteField(R"({"after":{},"source":{"db":"x"}})", kSourceTable);
  EXPECT_EQ(missing.kind, RouteField::Kind::kUnrouted);
  EXPECT_EQ(missing.text, "the record has no field source.table");
  EXPECT_EQ(JsonRouteField(R"({"source":null})", kSourceTable).text, "its field source is null");
  EXPECT_EQ(JsonRouteField(R"({"source":{"table":7}})", kSourceTable).text,
            "its field source.table is 7, not a string");
  EXPECT_EQ(JsonRouteField(R"({"source":"x"})", kSourceTable).text, "its field source is not an object");
  EXPECT_EQ(JsonRouteField("not json", kSourceTable).kind, RouteField::Kind::kUndecodable);
  EXPECT_EQ(JsonRouteField("[1]", kSourceTable).kind, RouteField::Kind::kUndecodable);
  EXPECT_EQ(JsonRouteField(R"({"schema":{},"payload":null})", kSourceTable).kind,
            RouteField::Kind::kTombstone)
      << "the converter's tombstone names no table";
}

TEST(KafkaTopicRoutesTest, AvroFieldsAreReadThroughUnionsAndTheWriterSchema) {
  const std::string schema_text =
      R"({"type":"record","name":"Envelope","fields":[)"
      R"({"name":"after","type":["null",{"type":"record","name":"Value","fields":[{"name":"id","type":"int"}]}]},)"
      R"({"name":"source","type":{"type":"record","name":"Source","fields":[)"
      R"({"name":"table","type":["null","string"]},{"name":"version","type":"int"}]}}]})";
  auto schema = avro::AvroSchema::Parse(schema_text);
  ASSERT_OK(schema.status());
  auto registered = std::make_shared<schema_registry::RegisteredSchema>();
  registered->id = 3;
  registered->schema_type = "AVRO";
  registered->text = schema_text;
  registered->avro = *schema;
  Status registry_failure;
  RegisteredSchemaLookup lookup =
      [&](int32_t id) -> Result<std::shared_ptr<const schema_registry::RegisteredSchema>> {
    if (!registry_failure.ok()) return registry_failure;
    if (id != 3) return Status::NotFound("schema id " + std::to_string(id) + " not found");
    return std::shared_ptr<const schema_registry::RegisteredSchema>(registered);
  };
  auto datum = [&](std::optional<std::string> table, int32_t id = 3) {
    const avro::AvroValue value = avro::AvroValue::Record(
        {avro::AvroValue::Union(1, avro::AvroValue::Record({avro::AvroValue::Int(1)})),
         avro::AvroValue::Record({table ? avro::AvroValue::Union(1, avro::AvroValue::String(*table))
                                        : avro::AvroValue::Union(0, avro::AvroValue::Null()),
                                  avro::AvroValue::Int(2)})});
    std::vector<uint8_t> bytes;
    avro::AvroEncoder encoder(&bytes);
    EXPECT_OK(encoder.Encode(schema->root(), value));
    return connect::ConfluentHeader(id) + std::string(bytes.begin(), bytes.end());
  };
  ASSERT_OK_AND_ASSIGN(RouteField orders, AvroRouteField(datum("orders"), kSourceTable, lookup));
  EXPECT_EQ(orders.kind, RouteField::Kind::kValue);
  EXPECT_EQ(orders.text, "orders");
  ASSERT_OK_AND_ASSIGN(RouteField null_table, AvroRouteField(datum(std::nullopt), kSourceTable, lookup));
  EXPECT_EQ(null_table.text, "its field source.table is null");
  ASSERT_OK_AND_ASSIGN(RouteField no_field, AvroRouteField(datum("orders"), {"source", "db"}, lookup));
  EXPECT_EQ(no_field.text, "the record has no field source.db");
  ASSERT_OK_AND_ASSIGN(RouteField not_string, AvroRouteField(datum("orders"), {"source", "version"}, lookup));
  EXPECT_EQ(not_string.text, "its field source.version is an Avro int, not a string");
  ASSERT_OK_AND_ASSIGN(RouteField unknown_id, AvroRouteField(datum("orders", 9), kSourceTable, lookup));
  EXPECT_EQ(unknown_id.kind, RouteField::Kind::kUndecodable) << "the decoder makes it a dead letter";
  ASSERT_OK_AND_ASSIGN(RouteField unframed, AvroRouteField("garbage", kSourceTable, lookup));
  EXPECT_EQ(unframed.kind, RouteField::Kind::kUndecodable);
  registry_failure = Status::IOError("registry down", /*retryable=*/true);
  auto down = AvroRouteField(datum("orders"), kSourceTable, lookup);
  ASSERT_FALSE(down.ok());
  EXPECT_TRUE(down.status().retryable()) << "the batch is redone, no record is set aside";
}

std::vector<StreamRecord> Mixed() {
  return {Record(0, Debezium("customers", 1)),
          Record(1, Debezium("orders", 1)),
          Record(2, Wrapped(Debezium("orders", 2))),
          Record(3, Debezium("payments", 1)),
          Record(4, R"({"after":{"id":3},"op":"c"})"),
          Record(5, std::nullopt),
          Record(6, "not json"),
          Record(7, Wrapped(Debezium("customers", 2)))};
}

std::vector<std::string> Offsets(const std::vector<StreamRecord>& records) {
  std::vector<std::string> out;
  for (const StreamRecord& record : records)
    out.push_back(record.position + (record.error.empty() ? "" : "!"));
  return out;
}

TEST(KafkaTopicRoutesTest, EachTableKeepsItsRecordsAndTheFirstTheUnroutedOnce) {
  const KafkaRecordOrigin origin("db.all", 1);
  auto read = [](const StreamRecord& record) -> Result<RouteField> {
    return JsonRouteField(*record.value, kSourceTable);
  };
  RecordRoute route{kSourceTable, "customers", {"customers", "orders"}, UnroutedRecordPolicy::kDeadLetter};
  std::vector<StreamRecord> customers = Mixed();
  ASSERT_OK(RouteRecords(route, origin, read, &customers));
  // The unrouted ones (3, 4) as dead letters, the undecodable for the decoder, no tombstone.
  EXPECT_EQ(Offsets(customers), (std::vector<std::string>{"0", "3!", "4!", "6", "7"}));
  EXPECT_EQ(customers[1].error,
            "[source] topic_routes: its field source.table = \"payments\" names none of the route's tables "
            "(customers, orders)");
  EXPECT_EQ(customers[2].error,
            "[source] topic_routes: the record has no field source, which names the record's table");

  route.table = "orders";
  std::vector<StreamRecord> orders = Mixed();
  ASSERT_OK(RouteRecords(route, origin, read, &orders));
  EXPECT_EQ(Offsets(orders), (std::vector<std::string>{"1", "2"})) << "nothing unrouted twice";

  route.table = "customers";
  route.on_unrouted = UnroutedRecordPolicy::kSkip;
  std::vector<StreamRecord> skipped = Mixed();
  ASSERT_OK(RouteRecords(route, origin, read, &skipped));
  EXPECT_EQ(Offsets(skipped), (std::vector<std::string>{"0", "6", "7"}));

  route.on_unrouted = UnroutedRecordPolicy::kFail;
  std::vector<StreamRecord> failed = Mixed();
  Status status = RouteRecords(route, origin, read, &failed);
  ASSERT_FALSE(status.ok());
  EXPECT_TRUE(status.retryable());
  EXPECT_THAT(status.message(),
              HasSubstr("db.all[1] offset 3: [source] topic_routes: its field source.table = "
                        "\"payments\""));
  route.table = "orders";
  std::vector<StreamRecord> orders_only = Mixed();
  // Only the first table judges the unrouted.
  EXPECT_OK(RouteRecords(route, origin, read, &orders_only));
}

}  // namespace
}  // namespace floe::ingest
