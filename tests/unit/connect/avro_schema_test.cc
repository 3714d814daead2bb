// Connect schemas of Avro schemas, as Confluent's Avro converter writes them
// for Debezium topics.
#include <gtest/gtest.h>

#include "formats/connect/connect_avro_schema.h"
#include "formats/connect/connect_types.h"
#include "test_util.h"
#include "unit/connect/connect_test_util.h"

namespace floe::connect {
namespace {

// The value schema of a Debezium customers topic with the Avro converter
// (the same columns as schema_test.cc's JSON envelope).
constexpr const char* kAvroEnvelope = R"({
  "type": "record", "name": "Envelope", "namespace": "dbserver1.inventory.customers",
  "connect.version": 1, "connect.name": "dbserver1.inventory.customers.Envelope",
  "fields": [
    {"name": "before", "default": null, "type": ["null", {
      "type": "record", "name": "Value", "connect.name": "dbserver1.inventory.customers.Value",
      "fields": [
        {"name": "id", "type": {"type": "int", "connect.default": 0}, "default": 0},
        {"name": "first_name", "type": "string"},
        {"name": "balance", "default": null, "type": ["null", {"type": "bytes", "scale": 2, "precision": 12,
          "connect.version": 1, "connect.parameters": {"scale": "2", "connect.decimal.precision": "12"},
          "connect.name": "org.apache.kafka.connect.data.Decimal", "logicalType": "decimal"}]},
        {"name": "created_at", "default": null, "type": ["null",
          {"type": "long", "connect.version": 1, "connect.name": "io.debezium.time.MicroTimestamp"}]},
        {"name": "birth_date", "default": null, "type": ["null",
          {"type": "int", "connect.version": 1, "connect.name": "io.debezium.time.Date"}]},
        {"name": "updated_at", "default": null, "type": ["null",
          {"type": "string", "connect.version": 1, "connect.name": "io.debezium.time.ZonedTimestamp"}]},
        {"name": "external_id", "default": null, "type": ["null",
          {"type": "string", "connect.version": 1, "connect.name": "io.debezium.data.Uuid"}]},
        {"name": "prefs", "default": null, "type": ["null",
          {"type": "string", "connect.version": 1, "connect.name": "io.debezium.data.Json"}]},
        {"name": "score", "default": null, "type": ["null", {"type": "record", "name": "VariableScaleDecimal",
          "namespace": "io.debezium.data", "connect.doc": "Variable scaled decimal", "connect.version": 1,
          "connect.name": "io.debezium.data.VariableScaleDecimal",
          "fields": [{"name": "scale", "type": "int"}, {"name": "value", "type": "bytes"}]}]},
        {"name": "tags", "default": null, "type": ["null", {"type": "array", "items": ["null", "string"]}]},
        {"name": "level", "default": null, "type": ["null", {"type": "int", "connect.type": "int16"}]},
        {"name": "active", "default": null, "type": ["null", "boolean"]}
      ]}]},
    {"name": "after", "default": null, "type": ["null", "Value"]},
    {"name": "op", "type": "string"},
    {"name": "ts_ms", "default": null, "type": ["null", "long"]}
  ]
})";

TEST(ConnectAvroSchemaTest, DebeziumEnvelopeMapsLikeTheJsonConverter) {
  ASSERT_OK_AND_ASSIGN(avro::AvroSchema avro, avro::AvroSchema::Parse(kAvroEnvelope));
  ASSERT_OK_AND_ASSIGN(ConnectSchema envelope, ConnectSchemaFromAvro(avro.root()));
  EXPECT_EQ(envelope.type, ConnectType::kStruct);
  EXPECT_EQ(envelope.name, "dbserver1.inventory.customers.Envelope");
  EXPECT_EQ(envelope.version, 1);
  ASSERT_EQ(envelope.fields.size(), 4u);
  const ConnectSchema& after = envelope.Field("after")->schema;
  EXPECT_TRUE(after.optional);
  EXPECT_EQ(after.name, "dbserver1.inventory.customers.Value");
  EXPECT_EQ(after.Field("score")->schema.doc, "Variable scaled decimal");
  EXPECT_EQ(after.Field("level")->schema.type, ConnectType::kInt16);
  EXPECT_FALSE(envelope.Field("op")->schema.optional);

  ASSERT_OK_AND_ASSIGN(Schema row, FloeSchemaOf(after, "after"));
  EXPECT_EQ(SchemaToString(row), SchemaToString(testing::CustomersRowSchema()));
  EXPECT_EQ(row[7].type.annotation, DataType::Annotation::kJson);
  EXPECT_TRUE(row[9].type.children[0].nullable);
}

TEST(ConnectAvroSchemaTest, LogicalTypesWithoutConnectNames) {
  ASSERT_OK_AND_ASSIGN(avro::AvroSchema avro, avro::AvroSchema::Parse(R"({
    "type": "record", "name": "Row", "fields": [
      {"name": "amount", "type": {"type": "bytes", "logicalType": "decimal", "precision": 9, "scale": 3}},
      {"name": "code", "type": {"type": "fixed", "name": "Money", "size": 8, "logicalType": "decimal",
                                "precision": 18, "scale": 4}},
      {"name": "day", "type": {"type": "int", "logicalType": "date"}},
      {"name": "at_ms", "type": {"type": "long", "logicalType": "timestamp-millis"}},
      {"name": "at_us", "type": {"type": "long", "logicalType": "timestamp-micros"}},
      {"name": "local_us", "type": {"type": "long", "logicalType": "local-timestamp-micros"}},
      {"name": "t_ms", "type": {"type": "int", "logicalType": "time-millis"}},
      {"name": "t_us", "type": {"type": "long", "logicalType": "time-micros"}},
      {"name": "id", "type": {"type": "string", "logicalType": "uuid"}},
      {"name": "color", "type": {"type": "enum", "name": "Color", "symbols": ["RED", "GREEN"]}},
      {"name": "attrs", "type": {"type": "map", "values": "long"}},
      {"name": "by_id", "type": {"type": "array", "items": {"type": "record",
        "name": "MapEntry", "namespace": "io.confluent.connect.avro",
        "fields": [{"name": "key", "type": "int"}, {"name": "value", "type": ["null", "string"]}]}}}
    ]})"));
  ASSERT_OK_AND_ASSIGN(ConnectSchema schema, ConnectSchemaFromAvro(avro.root()));
  EXPECT_EQ(*schema.Field("amount")->schema.Parameter("scale"), "3");
  EXPECT_EQ(*schema.Field("amount")->schema.Parameter("connect.decimal.precision"), "9");
  ASSERT_OK_AND_ASSIGN(Schema row, FloeSchemaOf(schema, ""));
  EXPECT_EQ(
      SchemaToString(row),
      SchemaToString({
          MakeField("amount", Decimal(9, 3), false),
          MakeField("code", Decimal(18, 4), false),
          MakeField("day", Date(), false),
          MakeField("at_ms", Timestamp(TimeUnit::kMilli, true), false),
          MakeField("at_us", Timestamp(TimeUnit::kMicro, true), false),
          MakeField("local_us", Timestamp(TimeUnit::kMicro, false), false),
          MakeField("t_ms", Time(TimeUnit::kMilli), false),
          MakeField("t_us", Time(TimeUnit::kMicro), false),
          MakeField("id", Uuid(), false),
          MakeField("color", String(), false),
          MakeField("attrs", Map(MakeField("key", String(), false), MakeField("value", Int64(), false)),
                    false),
          MakeField("by_id", Map(MakeField("key", Int32(), false), MakeField("value", String())), false),
      }));
}

TEST(ConnectAvroSchemaTest, UnionsOtherThanOptionalAreNotSupported) {
  ASSERT_OK_AND_ASSIGN(avro::AvroSchema avro, avro::AvroSchema::Parse(R"({
    "type": "record", "name": "Row", "fields": [{"name": "either", "type": ["null", "int", "string"]}]})"));
  auto schema = ConnectSchemaFromAvro(avro.root());
  ASSERT_FALSE(schema.ok());
  EXPECT_EQ(schema.status().kind(), ErrorKind::kNotSupported);
  EXPECT_NE(schema.status().message().find("avro schema.either"), std::string::npos)
      << schema.status().ToString();

  ASSERT_OK_AND_ASSIGN(avro::AvroSchema recursive, avro::AvroSchema::Parse(R"({
    "type": "record", "name": "Node", "fields": [{"name": "next", "type": ["null", "Node"]}]})"));
  auto deep = ConnectSchemaFromAvro(recursive.root());
  ASSERT_FALSE(deep.ok());
  EXPECT_NE(deep.status().message().find("deeper than"), std::string::npos) << deep.status().ToString();
}

}  // namespace
}  // namespace floe::connect
