// Connect schemas from the JSON converter, and their floe types.
#include <gtest/gtest.h>

#include "formats/connect/connect_schema.h"
#include "formats/connect/connect_types.h"
#include "test_util.h"
#include "unit/connect/connect_test_util.h"

namespace floe::connect {
namespace {

// The value schema Debezium's PostgreSQL connector writes for a customers
// table with the JSON converter (schemas.enable=true), shortened to the
// interesting columns.
constexpr const char* kEnvelopeSchema = R"({
  "type": "struct", "name": "dbserver1.inventory.customers.Envelope", "version": 1, "optional": false,
  "fields": [
    {"type": "struct", "optional": true, "name": "dbserver1.inventory.customers.Value", "field": "before",
     "fields": [
       {"type": "int32", "optional": false, "default": 0, "field": "id"},
       {"type": "string", "optional": false, "field": "first_name"},
       {"type": "bytes", "optional": true, "name": "org.apache.kafka.connect.data.Decimal", "version": 1,
        "parameters": {"scale": "2", "connect.decimal.precision": "12"}, "field": "balance"},
       {"type": "int64", "optional": true, "name": "io.debezium.time.MicroTimestamp", "version": 1,
        "field": "created_at"},
       {"type": "int32", "optional": true, "name": "io.debezium.time.Date", "version": 1, "field": "birth_date"},
       {"type": "string", "optional": true, "name": "io.debezium.time.ZonedTimestamp", "version": 1,
        "field": "updated_at"},
       {"type": "string", "optional": true, "name": "io.debezium.data.Uuid", "version": 1, "field": "external_id"},
       {"type": "string", "optional": true, "name": "io.debezium.data.Json", "version": 1, "field": "prefs"},
       {"type": "struct", "optional": true, "name": "io.debezium.data.VariableScaleDecimal", "version": 1,
        "doc": "Variable scaled decimal", "field": "score",
        "fields": [{"type": "int32", "optional": false, "field": "scale"},
                   {"type": "bytes", "optional": false, "field": "value"}]},
       {"type": "array", "optional": true, "items": {"type": "string", "optional": true}, "field": "tags"},
       {"type": "int16", "optional": true, "field": "level"},
       {"type": "boolean", "optional": true, "field": "active"}
     ]},
    {"type": "struct", "optional": false, "name": "io.debezium.connector.postgresql.Source", "field": "source",
     "fields": [
       {"type": "string", "optional": false, "field": "connector"},
       {"type": "int64", "optional": false, "field": "ts_ms"},
       {"type": "string", "optional": true, "name": "io.debezium.data.Enum", "version": 1,
        "parameters": {"allowed": "true,last,false,incremental"}, "default": "false", "field": "snapshot"},
       {"type": "int64", "optional": true, "field": "lsn"}
     ]},
    {"type": "string", "optional": false, "field": "op"},
    {"type": "int64", "optional": true, "field": "ts_ms"},
    {"type": "map", "optional": true, "keys": {"type": "string", "optional": false},
     "values": {"type": "int64", "optional": true}, "field": "counters"}
  ]
})";

TEST(ConnectSchemaTest, ParsesADebeziumEnvelope) {
  ASSERT_OK_AND_ASSIGN(ConnectSchema envelope, ParseConnectSchema(kEnvelopeSchema));
  EXPECT_EQ(envelope.type, ConnectType::kStruct);
  EXPECT_EQ(envelope.name, "dbserver1.inventory.customers.Envelope");
  EXPECT_EQ(envelope.version, 1);
  EXPECT_FALSE(envelope.optional);
  ASSERT_EQ(envelope.fields.size(), 5u);
  const ConnectField* before = envelope.Field("before");
  ASSERT_NE(before, nullptr);
  EXPECT_TRUE(before->schema.optional);
  ASSERT_EQ(before->schema.fields.size(), 12u);
  const ConnectSchema& balance = before->schema.Field("balance")->schema;
  EXPECT_EQ(balance.type, ConnectType::kBytes);
  EXPECT_EQ(balance.semantic, SemanticType::kDecimal);
  ASSERT_NE(balance.Parameter("scale"), nullptr);
  EXPECT_EQ(*balance.Parameter("scale"), "2");
  EXPECT_EQ(before->schema.Field("created_at")->schema.semantic, SemanticType::kDebeziumMicroTimestamp);
  EXPECT_EQ(before->schema.Field("score")->schema.semantic, SemanticType::kDebeziumVariableScaleDecimal);
  EXPECT_EQ(before->schema.Field("score")->schema.doc, "Variable scaled decimal");
  EXPECT_EQ(before->schema.Field("tags")->schema.children[0].type, ConnectType::kString);
  const ConnectSchema& snapshot = envelope.Field("source")->schema.Field("snapshot")->schema;
  EXPECT_EQ(snapshot.semantic, SemanticType::kDebeziumEnum);
  EXPECT_EQ(*snapshot.Parameter("allowed"), "true,last,false,incremental");
  const ConnectSchema& counters = envelope.Field("counters")->schema;
  ASSERT_EQ(counters.children.size(), 2u);
  EXPECT_EQ(counters.children[1].type, ConnectType::kInt64);
}

TEST(ConnectSchemaTest, RowImageMapsToExactFloeTypes) {
  ASSERT_OK_AND_ASSIGN(ConnectSchema envelope, ParseConnectSchema(kEnvelopeSchema));
  ASSERT_OK_AND_ASSIGN(Schema row, FloeSchemaOf(envelope.Field("before")->schema, "before"));
  EXPECT_EQ(SchemaToString(row), SchemaToString(testing::CustomersRowSchema()));
  EXPECT_FALSE(row[0].nullable);
  EXPECT_TRUE(row[2].nullable);
  EXPECT_EQ(row[7].type.annotation, DataType::Annotation::kJson);

  // Asked for, the variable-scale decimal becomes a fixed-scale decimal.
  ConnectTypeOptions options;
  options.variable_scale_decimal_scale = 6;
  ASSERT_OK_AND_ASSIGN(row, FloeSchemaOf(envelope.Field("before")->schema, "before", options));
  EXPECT_EQ(row[8].type, Decimal(38, 6));

  ASSERT_OK_AND_ASSIGN(Schema whole, FloeSchemaOf(envelope, ""));
  EXPECT_EQ(whole[4].type, Map(MakeField("key", String(), false), MakeField("value", Int64())));
  EXPECT_EQ(whole[1].type.children[2].type.annotation, DataType::Annotation::kEnum);
}

TEST(ConnectSchemaTest, EverySemanticTypeHasItsExactType) {
  struct Case {
    const char* type;
    const char* name;
    const char* parameters;
    DataType expected;
  };
  const Case cases[] = {
      {"bytes", "org.apache.kafka.connect.data.Decimal", R"({"scale": "3"})", Decimal(38, 3)},
      {"int32", "org.apache.kafka.connect.data.Date", "{}", Date()},
      {"int32", "org.apache.kafka.connect.data.Time", "{}", Time(TimeUnit::kMilli)},
      {"int64", "org.apache.kafka.connect.data.Timestamp", "{}", Timestamp(TimeUnit::kMilli, true)},
      {"int32", "io.debezium.time.Date", "{}", Date()},
      {"int32", "io.debezium.time.Time", "{}", Time(TimeUnit::kMilli)},
      {"int64", "io.debezium.time.MicroTime", "{}", Time(TimeUnit::kMicro)},
      {"int64", "io.debezium.time.NanoTime", "{}", Time(TimeUnit::kNano)},
      {"int64", "io.debezium.time.Timestamp", "{}", Timestamp(TimeUnit::kMilli, false)},
      {"int64", "io.debezium.time.MicroTimestamp", "{}", Timestamp(TimeUnit::kMicro, false)},
      {"int64", "io.debezium.time.NanoTimestamp", "{}", Timestamp(TimeUnit::kNano, false)},
      {"string", "io.debezium.time.ZonedTimestamp", "{}", Timestamp(TimeUnit::kMicro, true)},
      {"string", "io.debezium.time.ZonedTime", "{}", Time(TimeUnit::kMicro)},
      {"string", "io.debezium.data.Uuid", "{}", Uuid()},
      {"string", "io.debezium.data.EnumSet", R"({"allowed": "a,b"})", String()},
      {"string", "io.debezium.data.Xml", "{}", String()},
      {"bytes", "io.debezium.data.Bits", R"({"length": "12"})", Binary()},
      {"int32", "io.debezium.time.Year", "{}", Int32()},
      {"int64", "io.debezium.time.MicroDuration", "{}", Int64()},
      {"string", "io.debezium.data.geometry.Unknown", "{}", String()},  // unknown names: the physical type
  };
  for (const Case& c : cases) {
    std::string json = std::string(R"({"type": ")") + c.type + R"(", "name": ")" + c.name +
                       R"(", "parameters": )" + c.parameters + "}";
    ASSERT_OK_AND_ASSIGN(ConnectSchema schema, ParseConnectSchema(json));
    ASSERT_OK_AND_ASSIGN(DataType type, FloeTypeOf(schema, c.name));
    EXPECT_EQ(type, c.expected) << c.name << ": " << type.ToString();
  }
}

TEST(ConnectSchemaTest, SemanticTypesOnTheWrongPhysicalTypeAreMismatches) {
  for (
      const char* json : {
          R"({"type": "string", "name": "io.debezium.time.Date"})",
          R"({"type": "int32", "name": "io.debezium.time.MicroTimestamp"})",
          R"({"type": "bytes", "name": "org.apache.kafka.connect.data.Decimal"})",
          R"({"type": "bytes", "name": "org.apache.kafka.connect.data.Decimal", "parameters": {"scale": "-2"}})",
          R"({"type": "bytes", "name": "org.apache.kafka.connect.data.Decimal",
               "parameters": {"scale": "2", "connect.decimal.precision": "40"}})",
          R"({"type": "struct", "name": "io.debezium.data.VariableScaleDecimal",
               "fields": [{"field": "value", "type": "bytes"}]})",
      }) {
    ASSERT_OK_AND_ASSIGN(ConnectSchema schema, ParseConnectSchema(json));
    auto type = FloeTypeOf(schema, "after.x");
    ASSERT_FALSE(type.ok()) << json;
    EXPECT_EQ(type.status().kind(), ErrorKind::kSchemaMismatch) << type.status().ToString();
    EXPECT_NE(type.status().message().find("after.x"), std::string::npos) << type.status().ToString();
  }
}

TEST(ConnectSchemaTest, MalformedSchemasNameThePath) {
  struct Case {
    const char* json;
    const char* expected;
  };
  const Case cases[] = {
      {"not json", "not valid JSON"},
      {"[]", "must be an object"},
      {R"({"type": "decimal"})", "schema.type: unknown Connect type \"decimal\""},
      {R"({"optional": true})", "schema.type: missing"},
      {R"({"type": "struct"})", "schema.fields: missing"},
      {R"({"type": "struct", "fields": [{"type": "int32"}]})", "schema.fields[0].field: missing"},
      {R"({"type": "struct", "fields": [{"field": "a", "type": "int32", "optional": "yes"}]})",
       "schema.fields[0](a).optional: not a boolean"},
      {R"({"type": "struct", "fields": [{"field": "a", "type": "int32"}, {"field": "a", "type": "int64"}]})",
       "schema.fields[1](a): field name appears twice"},
      {R"({"type": "array"})", "schema.items: missing"},
      {R"({"type": "map", "keys": {"type": "string"}})", "needs \"keys\" and \"values\""},
      {R"({"type": "int32", "parameters": {"x": [1]}})", "schema.parameters.x: not a string"},
      {R"({"type": "int32", "version": 1.5})", "schema.version: not a 32-bit integer"},
  };
  for (const Case& c : cases) {
    auto schema = ParseConnectSchema(c.json);
    ASSERT_FALSE(schema.ok()) << c.json;
    EXPECT_EQ(schema.status().kind(), ErrorKind::kCorruption);
    EXPECT_NE(schema.status().message().find(c.expected), std::string::npos) << schema.status().ToString();
  }
}

TEST(ConnectSchemaTest, DeepNestingIsRejectedWithoutRecursingDeep) {
  std::string nested;
  for (int i = 0; i < 100; ++i) nested += R"({"type": "array", "items": )";
  nested += R"({"type": "int32"})";
  for (int i = 0; i < 100; ++i) nested += "}";
  auto schema = ParseConnectSchema(nested);
  ASSERT_FALSE(schema.ok());
  EXPECT_NE(schema.status().message().find("deeper than"), std::string::npos) << schema.status().ToString();

  std::string brackets(1000000, '[');  // a million levels of plain JSON
  schema = ParseConnectSchema(brackets);
  ASSERT_FALSE(schema.ok());

  std::string fine;
  for (int i = 0; i < 60; ++i) fine += R"({"type": "array", "items": )";
  fine += R"({"type": "int32"})";
  for (int i = 0; i < 60; ++i) fine += "}";
  EXPECT_OK(ParseConnectSchema(fine));
}

TEST(ConnectSchemaTest, CacheParsesEachTextOnce) {
  ConnectSchemaCache cache(2);
  ASSERT_OK_AND_ASSIGN(auto a, cache.Get(kEnvelopeSchema));
  ASSERT_OK_AND_ASSIGN(auto b, cache.Get(kEnvelopeSchema));
  EXPECT_EQ(a.get(), b.get());
  ASSERT_OK_AND_ASSIGN(auto c, cache.Get(R"({"type": "int32"})"));
  ASSERT_OK_AND_ASSIGN(auto d, cache.Get(R"({"type": "int64"})"));  // full: starts over
  EXPECT_EQ(d->type, ConnectType::kInt64);
  EXPECT_EQ(a->name, "dbserver1.inventory.customers.Envelope");  // old pointers stay valid
  EXPECT_FALSE(cache.Get("{").ok());
}

}  // namespace
}  // namespace floe::connect
