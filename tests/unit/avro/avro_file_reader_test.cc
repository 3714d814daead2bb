// AvroFileReader and AvroColumnarDecoder: every type, unions, logical types,
// chunking over blocks, projections, codecs, corrupt files.
#include "formats/avro/avro_file_reader.h"

#include <gtest/gtest.h>

#include "columnar/json_format.h"
#include "formats/avro/container_writer.h"
#include "formats/avro/encoder.h"
#include "io/file_io.h"
#include "test_util.h"
#include "unit/formats/chunked_reader_rows.h"

namespace floe::avro {
namespace {

const char* kSchema = R"({"type":"record","name":"r","fields":[
  {"name":"b","type":"boolean"},
  {"name":"i","type":"int","field-id":7},
  {"name":"l","type":"long","aliases":["old_l"]},
  {"name":"f","type":"float"},
  {"name":"d","type":"double"},
  {"name":"s","type":["null","string"]},
  {"name":"by","type":"bytes"},
  {"name":"e","type":{"type":"enum","name":"E","symbols":["A","B"]}},
  {"name":"fx","type":{"type":"fixed","name":"F","size":3}},
  {"name":"dec","type":{"type":"bytes","logicalType":"decimal","precision":10,"scale":2}},
  {"name":"decf","type":{"type":"fixed","name":"D","size":8,"logicalType":"decimal","precision":18,"scale":4}},
  {"name":"u","type":{"type":"string","logicalType":"uuid"}},
  {"name":"day","type":{"type":"int","logicalType":"date"}},
  {"name":"tm","type":{"type":"int","logicalType":"time-millis"}},
  {"name":"ts","type":{"type":"long","logicalType":"timestamp-micros"}},
  {"name":"lts","type":{"type":"long","logicalType":"local-timestamp-millis"}},
  {"name":"arr","type":{"type":"array","items":["null","int"]}},
  {"name":"m","type":{"type":"map","values":"long"}},
  {"name":"rec","type":["null",{"type":"record","name":"Inner","fields":[{"name":"x","type":"int","aliases":["y"]}]}]},
  {"name":"un","type":["null","int","string"]}
]})";

AvroValue Row(int i) {
  std::vector<AvroValue> arr = {AvroValue::Union(1, AvroValue::Int(i)),
                                AvroValue::Union(0, AvroValue::Null())};
  std::vector<uint8_t> dec = {0xFF, 0x85};                     // -123 -> -1.23
  std::vector<uint8_t> decf = {0, 0, 0, 0, 0, 0, 0x30, 0x39};  // 12345 -> 1.2345
  return AvroValue::Record({
      AvroValue::Boolean(i % 2 == 0),
      AvroValue::Int(-i),
      AvroValue::Long(int64_t{1} << 40 | i),
      AvroValue::Float(1.5f),
      AvroValue::Double(0.1 * i),
      i % 3 == 0 ? AvroValue::Union(0, AvroValue::Null())
                 : AvroValue::Union(1, AvroValue::String("s" + std::to_string(i))),
      AvroValue::Bytes(std::string_view("\x01\x02")),
      AvroValue::Enum(i % 2),
      AvroValue::Fixed({'a', 'b', 'c'}),
      AvroValue::Bytes(dec),
      AvroValue::Fixed(decf),
      AvroValue::String("123e4567-e89b-12d3-a456-426614174000"),
      AvroValue::Int(18263),
      AvroValue::Int(3723004),
      AvroValue::Long(1577923200000001),
      AvroValue::Long(1577923200002),
      AvroValue::Array(arr),
      AvroValue::Map({{"k", AvroValue::Long(i)}}),
      i % 2 ? AvroValue::Union(1, AvroValue::Record({AvroValue::Int(i)}))
            : AvroValue::Union(0, AvroValue::Null()),
      i % 3 == 0   ? AvroValue::Union(0, AvroValue::Null())
      : i % 3 == 1 ? AvroValue::Union(1, AvroValue::Int(i))
                   : AvroValue::Union(2, AvroValue::String("x")),
  });
}

std::string WriteRows(const std::string& path, AvroCodec codec, int rows, int64_t block_bytes = 200) {
  auto file = MakeLocalFileIO()->Create(path);
  EXPECT_TRUE(file.ok());
  AvroWriteOptions options;
  options.codec = codec;
  options.block_bytes = block_bytes;
  auto writer = AvroContainerWriter::Open(std::move(*file), *AvroSchema::Parse(kSchema), {}, options);
  EXPECT_TRUE(writer.ok()) << writer.status().ToString();
  for (int i = 0; i < rows; ++i) EXPECT_OK((*writer)->Append(Row(i)));
  EXPECT_TRUE((*writer)->Close().ok());
  return path;
}

Result<std::unique_ptr<AvroFileReader>> Open(const std::string& path, AvroFileReadOptions options = {}) {
  FLOE_ASSIGN_OR_RETURN(auto file, MakeLocalFileIO()->OpenRead(path));
  return AvroFileReader::Open(std::shared_ptr<InputFile>(std::move(file)), options);
}

TEST(AvroFileReaderTest, EveryTypeMapsAndDecodes) {
  floe::testing::TempDir dir;
  ASSERT_OK_AND_ASSIGN(auto reader, Open(WriteRows(dir.File("a.avro"), AvroCodec::kNull, 3)));
  EXPECT_EQ(
      SchemaToString(reader->schema()),
      "b: bool not null\ni: int32 not null (id 7)\nl: int64 not null\nf: float32 not null\nd: float64 not "
      "null\n"
      "s: string\nby: binary not null\ne: string not null\nfx: fixed[3] not null\n"
      "dec: decimal(10,2) not null\ndecf: decimal(18,4) not null\nu: uuid not null\nday: date not null\n"
      "tm: time[ms] not null\nts: timestamp[us, utc] not null\nlts: timestamp[ms] not null\n"
      "arr: list<int32> not null\nm: map<string, int64> not null\nrec: struct<x: int32>\n"
      "un: struct<tag: int32, field0: int32, field1: string>\n");
  EXPECT_EQ(reader->schema()[1].field_id, 7);
  ASSERT_EQ(reader->field_aliases().size(), 2u);
  EXPECT_EQ(reader->field_aliases()[0].path, std::vector<std::string>{"l"});
  EXPECT_EQ(reader->field_aliases()[0].aliases, std::vector<std::string>{"old_l"});
  EXPECT_EQ(reader->field_aliases()[1].path, (std::vector<std::string>{"rec", "x"}));
  ASSERT_OK_AND_ASSIGN(RecordBatch batch, reader->ReadChunk(0, {}));
  std::string row;
  AppendJsonRow(batch, 1, &row);
  EXPECT_EQ(
      row,
      R"({"b":false,"i":-1,"l":1099511627777,"f":1.5,"d":0.1,"s":"s1","by":"0102","e":"B","fx":"616263",)"
      R"("dec":"-1.23","decf":"1.2345","u":"123e4567-e89b-12d3-a456-426614174000","day":"2020-01-02",)"
      R"("tm":"01:02:03.004","ts":"2020-01-02T00:00:00.000001Z","lts":"2020-01-02T00:00:00.002",)"
      R"("arr":[1,null],"m":[{"key":"k","value":1}],"rec":{"x":1},"un":{"tag":0,"field0":1,"field1":null}})");
  row.clear();
  AppendJsonRow(batch, 2, &row);
  EXPECT_NE(row.find(R"("rec":null,"un":{"tag":1,"field0":null,"field1":"x"})"), std::string::npos) << row;
  row.clear();
  AppendJsonRow(batch, 0, &row);
  EXPECT_NE(row.find(R"("s":null)"), std::string::npos);
  EXPECT_NE(row.find(R"("un":null)"), std::string::npos);
}

TEST(AvroFileReaderTest, ChunksOfBlocksInEveryCodec) {
  floe::testing::TempDir dir;
  for (AvroCodec codec : {AvroCodec::kNull, AvroCodec::kDeflate, AvroCodec::kSnappy, AvroCodec::kZstandard}) {
    SCOPED_TRACE(AvroCodecName(codec));
    AvroFileReadOptions options;
    options.chunk_rows = 50;
    ASSERT_OK_AND_ASSIGN(auto reader, Open(WriteRows(dir.File("c.avro"), codec, 500), options));
    EXPECT_EQ(reader->num_rows(), 500);
    EXPECT_GT(reader->num_chunks(), 9);
    const std::string ids = floe::testing::ReadAllRows(*reader, {2, 19});
    EXPECT_EQ(std::count(ids.begin(), ids.end(), '\n'), 500);
    EXPECT_NE(ids.find("{\"l\":1099511628275,\"un\":{\"tag\":0,\"field0\":499,\"field1\":null}}"),
              std::string::npos);
    const std::string all = floe::testing::ReadAllRows(*reader);
    EXPECT_EQ(std::count(all.begin(), all.end(), '\n'), 500);
  }
}

TEST(AvroFileReaderTest, CorruptBlocksNameTheBlockAndField) {
  floe::testing::TempDir dir;
  const std::string path = WriteRows(dir.File("x.avro"), AvroCodec::kNull, 40, 100000);
  ASSERT_OK_AND_ASSIGN(auto bytes, MakeLocalFileIO()->ReadAll(path));
  // Truncate inside the only block's data: the head no longer fits the file.
  std::vector<uint8_t> cut(bytes.begin(), bytes.end() - 30);
  ASSERT_OK(MakeLocalFileIO()->WriteAll(dir.File("cut.avro"), cut));
  auto truncated = Open(dir.File("cut.avro"));
  ASSERT_FALSE(truncated.ok());
  EXPECT_NE(truncated.status().message().find("cut.avro: block 1 at offset"), std::string::npos)
      << truncated.status().message();
  // An enum index out of range: flip bytes until the decode fails, then check the message names a field.
  bool saw_field_error = false;
  for (size_t at = bytes.size() - 200; at < bytes.size() - 20 && !saw_field_error; ++at) {
    std::vector<uint8_t> bad = bytes;
    bad[at] = 0x7f;
    ASSERT_OK(MakeLocalFileIO()->WriteAll(dir.File("bad.avro"), bad));
    auto reader = Open(dir.File("bad.avro"));
    if (!reader.ok()) continue;
    auto batch = (*reader)->ReadChunk(0, {});
    if (batch.ok()) continue;
    EXPECT_NE(batch.status().message().find("bad.avro: block 1: record "), std::string::npos)
        << batch.status().message();
    saw_field_error = true;
  }
  EXPECT_TRUE(saw_field_error);
}

TEST(AvroFileReaderTest, BareValuesAndRecursiveSchemas) {
  ASSERT_OK_AND_ASSIGN(auto bare, AvroSchema::Parse(R"(["null","string"])"));
  ASSERT_OK_AND_ASSIGN(AvroColumnarSchema columnar, AvroToColumnarSchema(bare));
  EXPECT_TRUE(columnar.wrapped);
  EXPECT_EQ(SchemaToString(columnar.schema), "value: string\n");
  ASSERT_OK_AND_ASSIGN(auto decoder, AvroColumnarDecoder::Make(bare));
  std::vector<uint8_t> bytes;
  AvroEncoder encoder(&bytes);
  encoder.WriteLong(1);
  encoder.WriteString("hello");
  encoder.WriteLong(0);
  AvroDecoder input(bytes);
  ASSERT_OK(decoder->Append(&input));
  ASSERT_OK(decoder->Append(&input));
  EXPECT_FALSE(decoder->Append(&input).ok());  // no bytes left: the batch keeps its 2 rows
  RecordBatch batch = decoder->Finish();
  ASSERT_EQ(batch.num_rows, 2);
  EXPECT_EQ(batch.columns[0].StringAt(0), "hello");
  EXPECT_TRUE(batch.columns[0].IsNull(1));

  ASSERT_OK_AND_ASSIGN(
      auto recursive,
      AvroSchema::Parse(
          R"({"type":"record","name":"Node","fields":[{"name":"next","type":["null","Node"]}]})"));
  auto mapped = AvroToColumnarSchema(recursive);
  ASSERT_FALSE(mapped.ok());
  EXPECT_EQ(mapped.status().kind(), ErrorKind::kNotSupported);
  EXPECT_NE(mapped.status().message().find("Node contains itself"), std::string::npos);
}

}  // namespace
}  // namespace floe::avro
