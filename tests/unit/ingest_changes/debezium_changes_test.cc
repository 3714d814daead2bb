// The "debezium" change convention bound to unit schemas as the JSON reader
// produces them: the plain envelope and the schema/payload wrapper, keys
// from after or (deletes) before, ordering paths inside the envelope, the
// row image with its ordering column, and the rows that cannot be changes.
#include "ingest/changes/debezium_changes.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "test_util.h"

namespace floe::ingest {
namespace {

using ::testing::HasSubstr;

MergeConfig Debezium() {
  MergeConfig merge;
  merge.keys = {"id"};
  merge.order_by = {{"source.lsn", OrderingKind::kNumber}};
  merge.operation_column = "op";
  merge.insert_values = {std::string("c"), std::string("r")};
  merge.update_values = {std::string("u")};
  merge.delete_values = {std::string("d")};
  merge.ignore_values = {std::string("t"), std::string("m")};
  return merge;
}

const DataType kRow = Struct({MakeField("id", Int64()), MakeField("name", String())});
const DataType kSource = Struct({MakeField("ts_ms", Int64()), MakeField("lsn", Int64())});

// A struct column of `type` whose rows are `ids`/`names`, null where `present` is false.
Column Rows(const std::vector<int64_t>& ids, const std::vector<const char*>& names,
            const std::vector<bool>& present) {
  Column c = MakeEmptyColumn(kRow);
  for (size_t i = 0; i < ids.size(); ++i) {
    if (present[i]) {
      c.children[0].AppendValue<int64_t>(ids[i]);
      c.children[1].AppendBytes(names[i]);
      c.AppendStructSlot();
    } else {
      c.AppendNull();  // and a null slot in each member
    }
  }
  return c;
}

Column Sources(const std::vector<int64_t>& lsns) {
  Column c = MakeEmptyColumn(kSource);
  for (int64_t lsn : lsns) {
    c.children[0].AppendValue<int64_t>(1700000000000 + lsn);
    c.children[1].AppendValue<int64_t>(lsn);
    c.AppendStructSlot();
  }
  return c;
}

Column Ops(const std::vector<const char*>& ops) {
  Column c(String());
  for (const char* op : ops) {
    if (op) {
      c.AppendBytes(op);
    } else {
      c.AppendNull();
    }
  }
  return c;
}

RecordBatch Scanned(const RecordBatch& unit, const BoundChanges& bound) {
  RecordBatch batch;
  batch.num_rows = unit.num_rows;
  for (int index : bound.scan_columns()) {
    batch.schema.push_back(unit.schema[static_cast<size_t>(index)]);
    batch.columns.push_back(unit.columns[static_cast<size_t>(index)]);
  }
  return batch;
}

// before, after, source, op, ts_ms: c 1, u 1, d 2 (key only in before), r 3,
// u 4 without after, t, and a null op.
RecordBatch PlainUnit() {
  RecordBatch unit;
  unit.schema = {MakeField("before", kRow), MakeField("after", kRow), MakeField("source", kSource),
                 MakeField("op", String()), MakeField("ts_ms", Int64())};
  unit.columns = {Rows({0, 1, 2, 0, 4, 0, 0}, {"", "a", "b", "", "d", "", ""},
                       {false, true, true, false, true, false, false}),
                  Rows({1, 1, 0, 3, 0, 0, 5}, {"a", "a2", "", "c", "", "", "e"},
                       {true, true, false, true, false, false, true}),
                  Sources({10, 11, 12, 13, 14, 15, 16}), Ops({"c", "u", "d", "r", "u", "t", nullptr}),
                  Column(Int64())};
  for (int i = 0; i < 7; ++i) unit.columns[4].AppendValue<int64_t>(i);
  unit.num_rows = 7;
  return unit;
}

TEST(DebeziumChangesTest, PlainEnvelope) {
  DebeziumChanges convention(Debezium());
  const RecordBatch unit = PlainUnit();
  ASSERT_OK_AND_ASSIGN(auto bound, convention.Bind(unit.schema));
  EXPECT_EQ(bound->scan_columns(), (std::vector<int>{0, 1, 2, 3}));  // ts_ms is not needed
  ASSERT_OK_AND_ASSIGN(ChunkChanges changes, bound->Extract(Scanned(unit, *bound), 100));
  EXPECT_EQ(changes.actions, (std::vector<OperationAction>{
                                 OperationAction::kInsert, OperationAction::kUpdate, OperationAction::kDelete,
                                 OperationAction::kInsert, OperationAction::kUnknown,
                                 OperationAction::kIgnore, OperationAction::kUnknown}));
  ASSERT_EQ(changes.bad_rows.size(), 2u);
  EXPECT_EQ(changes.bad_rows[0].row, 104);
  EXPECT_THAT(changes.bad_rows[0].reason, HasSubstr("an update without an after image"));
  EXPECT_EQ(changes.bad_rows[1].row, 106);
  EXPECT_THAT(changes.bad_rows[1].reason, HasSubstr("null"));
  ASSERT_EQ(changes.keys.size(), 1u);
  const Column& key = changes.keys[0];
  EXPECT_EQ(key.Value<int64_t>(0), 1);
  EXPECT_EQ(key.Value<int64_t>(1), 1);
  EXPECT_EQ(key.Value<int64_t>(2), 2);  // the delete's key from before
  EXPECT_EQ(key.Value<int64_t>(3), 3);
  ASSERT_EQ(changes.orders.size(), 1u);
  EXPECT_EQ(changes.orders[0].Value<int64_t>(2), 12);

  // The image: after's members, then the ordering value as __source_lsn.
  EXPECT_EQ(bound->image_schema().size(), 3u);
  EXPECT_EQ(bound->image_schema()[2].name, "__source_lsn");
  ASSERT_OK_AND_ASSIGN(RecordBatch image, bound->Image(unit));
  EXPECT_EQ(image.num_rows, 7);
  EXPECT_EQ(image.columns[1].StringAt(1), "a2");
  EXPECT_EQ(image.columns[2].Value<int64_t>(3), 13);
  EXPECT_EQ(convention.table_ordering().columns[0].name, "__source_lsn");
}

TEST(DebeziumChangesTest, SchemaPayloadWrapper) {
  DebeziumChanges convention(Debezium());
  const RecordBatch plain = PlainUnit();
  RecordBatch unit;
  unit.schema = {
      MakeField("schema", String()),
      MakeField("payload", Struct({plain.schema[0], plain.schema[1], plain.schema[2], plain.schema[3]}))};
  Column payload = MakeEmptyColumn(unit.schema[1].type);
  for (size_t c = 0; c < 4; ++c) payload.children[c] = plain.columns[c];
  payload.length = plain.num_rows;
  // Row 3's payload is null: its op, key and ordering read as null.
  payload.validity = {0xF7};
  payload.null_count = 1;
  unit.columns = {Ops({"s", "s", "s", "s", "s", "s", "s"}), payload};
  unit.num_rows = plain.num_rows;
  ASSERT_OK_AND_ASSIGN(auto bound, convention.Bind(unit.schema));
  EXPECT_EQ(bound->scan_columns(), (std::vector<int>{1}));
  ASSERT_OK_AND_ASSIGN(ChunkChanges changes, bound->Extract(Scanned(unit, *bound), 0));
  EXPECT_EQ(changes.actions[2], OperationAction::kDelete);
  EXPECT_EQ(changes.actions[3], OperationAction::kUnknown);
  EXPECT_EQ(changes.keys[0].Value<int64_t>(2), 2);
  EXPECT_TRUE(changes.orders[0].IsNull(3));
  ASSERT_OK_AND_ASSIGN(RecordBatch image, bound->Image(unit));
  EXPECT_EQ(image.columns[0].Value<int64_t>(1), 1);
}

TEST(DebeziumChangesTest, BindNamesWhatIsMissing) {
  DebeziumChanges convention(Debezium());
  const Schema no_op = {MakeField("after", kRow), MakeField("source", kSource)};
  EXPECT_THAT(convention.Bind(no_op).status().message(), HasSubstr("missing operation column op"));
  const Schema no_images = {MakeField("op", String()), MakeField("after", String())};
  EXPECT_THAT(convention.Bind(no_images).status().message(), HasSubstr("neither after nor before"));
  const Schema no_lsn = {MakeField("after", kRow), MakeField("op", String()),
                         MakeField("source", Struct({MakeField("ts_ms", Int64())}))};
  EXPECT_THAT(convention.Bind(no_lsn).status().message(), HasSubstr("missing ordering column source.lsn"));
  MergeConfig other_key = Debezium();
  other_key.keys = {"customer_id"};
  const Schema plain = {MakeField("after", kRow), MakeField("op", String()), MakeField("source", kSource)};
  EXPECT_THAT(DebeziumChanges(other_key).Bind(plain).status().message(),
              HasSubstr("missing key column customer_id in the after and before images"));
  const Schema op_number = {MakeField("after", kRow), MakeField("op", Int64()), MakeField("source", kSource)};
  EXPECT_FALSE(convention.Bind(op_number).ok());
}

// Issue 16: without [merge] keys (Debezium from Kafka) the key columns are
// the record key's fields (the opener's __record_key column); their values
// come from the images, so they have the table's types.
TEST(DebeziumChangesTest, KeysFromTheRecordKey) {
  MergeConfig merge = Debezium();
  merge.keys.clear();
  merge.keys_from_record_key = true;
  DebeziumChanges convention(merge);
  EXPECT_TRUE(convention.keys_from_units());
  EXPECT_TRUE(convention.AdoptedKeyColumns().empty());
  RecordBatch unit = PlainUnit();
  unit.schema.push_back(MakeField(std::string(kRecordKeyColumn), Struct({MakeField("id", Int32())}), false));
  Column record_key = MakeEmptyColumn(unit.schema.back().type);
  for (int64_t row = 0; row < unit.num_rows; ++row) {
    record_key.children[0].AppendValue<int32_t>(static_cast<int32_t>(row));
    record_key.AppendStructSlot();
  }
  unit.columns.push_back(std::move(record_key));
  ASSERT_OK_AND_ASSIGN(auto bound, convention.Bind(unit.schema));
  EXPECT_EQ(convention.AdoptedKeyColumns(), (std::vector<std::string>{"id"}));
  ASSERT_OK_AND_ASSIGN(ChunkChanges changes, bound->Extract(Scanned(unit, *bound), 0));
  ASSERT_EQ(changes.keys.size(), 1u);
  EXPECT_EQ(changes.key_names, (std::vector<std::string>{"id"}));
  EXPECT_EQ(changes.keys[0].type, Int64()) << "the image's type, not the key's";
  EXPECT_EQ(changes.keys[0].Value<int64_t>(2), 2);  // the delete's key from before
  // The record key is not part of the row image.
  for (const Field& field : bound->image_schema()) EXPECT_NE(field.name, std::string(kRecordKeyColumn));

  // Another key struct than the adopted one does not bind; nor no key, an
  // empty key, or a key field neither image has.
  auto with_key = [&](Schema members) {
    Schema schema = PlainUnit().schema;
    schema.push_back(MakeField(std::string(kRecordKeyColumn), Struct(std::move(members)), false));
    return schema;
  };
  EXPECT_THAT(convention.Bind(with_key({MakeField("name", String())})).status().message(),
              HasSubstr("the record key's fields (name) are not the table's key (id)"));
  EXPECT_THAT(convention.Bind(PlainUnit().schema).status().message(), HasSubstr("no record key"));
  DebeziumChanges fresh(merge);
  EXPECT_THAT(fresh.Bind(with_key({})).status().message(), HasSubstr("the record key has no fields"));
  EXPECT_THAT(fresh.Bind(with_key({MakeField("region", String())})).status().message(),
              HasSubstr("the record key's field region is in neither the after nor the before image"));

  // The table's recorded key decides (case and order as the table has them).
  DebeziumChanges recorded(merge);
  recorded.SetKeyColumns({"ID"});
  ASSERT_OK_AND_ASSIGN(auto bound_recorded, recorded.Bind(with_key({MakeField("id", Int32())})));
  ASSERT_OK_AND_ASSIGN(ChunkChanges recorded_changes,
                       bound_recorded->Extract(Scanned(unit, *bound_recorded), 0));
  EXPECT_EQ(recorded_changes.key_names, (std::vector<std::string>{"ID"}));
  EXPECT_EQ(recorded_changes.keys[0].Value<int64_t>(0), 1);
}

}  // namespace
}  // namespace floe::ingest
