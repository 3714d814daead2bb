// Round trips through ParquetFileWriter and ParquetFileReader: every floe
// type, nulls, nested shapes, empty batches, each page version, codec and
// encoding choice; values must come back bit for bit with the same schema.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "writer_test_util.h"

namespace floe::parquet {
namespace {

using testing::MakeBatch;
using testing::MakeColumn;
using testing::MakeStrings;
using testing::ReadFile;
using testing::RenderRows;
using testing::WriteFile;

// One column of every primitive type, `rows` rows with a null every 3rd row.
RecordBatch AllPrimitives(int64_t rows, uint32_t seed) {
  Schema schema = {
      MakeField("b", Bool(), true, 1),
      MakeField("i8", Int8(), true, 2),
      MakeField("i16", Int16(), true, 3),
      MakeField("i32", Int32(), false, 4),
      MakeField("i64", Int64()),
      MakeField("u8", UInt8()),
      MakeField("u16", UInt16()),
      MakeField("u32", UInt32()),
      MakeField("u64", UInt64()),
      MakeField("f16", Float16()),
      MakeField("f32", Float32()),
      MakeField("f64", Float64()),
      MakeField("d9", Decimal(9, 2)),
      MakeField("d18", Decimal(18, 3)),
      MakeField("d38", Decimal(38, 10)),
      MakeField("date", Date()),
      MakeField("t_ms", Time(TimeUnit::kMilli)),
      MakeField("t_us", Time(TimeUnit::kMicro)),
      MakeField("t_ns", Time(TimeUnit::kNano)),
      MakeField("ts_ms_utc", Timestamp(TimeUnit::kMilli, true)),
      MakeField("ts_us", Timestamp(TimeUnit::kMicro, false)),
      MakeField("ts_ns_utc", Timestamp(TimeUnit::kNano, true)),
      MakeField("s", String()),
      MakeField("bin", Binary()),
      MakeField("fixed", FixedBinary(3)),
      MakeField("uuid", Uuid()),
  };
  std::vector<Column> columns;
  for (const Field& f : schema) columns.push_back(MakeEmptyColumn(f.type));
  uint64_t state = seed * 2654435761u + 1;
  auto next = [&]() {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return state >> 11;
  };
  for (int64_t r = 0; r < rows; ++r) {
    for (size_t k = 0; k < schema.size(); ++k) {
      Column& c = columns[k];
      if (schema[k].nullable && (r + static_cast<int64_t>(k)) % 3 == 0) {
        c.AppendNull();
        continue;
      }
      uint64_t x = next() % 50;  // repeats, so dictionaries are used
      switch (c.type.id) {
        case TypeId::kBool: c.AppendValue<uint8_t>(x & 1); break;
        case TypeId::kInt8: c.AppendValue<int8_t>(static_cast<int8_t>(x * 5 - 128)); break;
        case TypeId::kInt16: c.AppendValue<int16_t>(static_cast<int16_t>(x * 1000 - 30000)); break;
        case TypeId::kInt32: c.AppendValue<int32_t>(static_cast<int32_t>(x * 40000000) - 1000000000); break;
        case TypeId::kInt64: c.AppendValue<int64_t>(static_cast<int64_t>(x) * -123456789012345LL); break;
        case TypeId::kUInt8: c.AppendValue<uint8_t>(static_cast<uint8_t>(x * 5)); break;
        case TypeId::kUInt16: c.AppendValue<uint16_t>(static_cast<uint16_t>(x * 1300)); break;
        case TypeId::kUInt32: c.AppendValue<uint32_t>(static_cast<uint32_t>(x * 85000000u)); break;
        case TypeId::kUInt64: c.AppendValue<uint64_t>(x * 360000000000000000ULL); break;
        case TypeId::kFloat16: c.AppendValue<uint16_t>(static_cast<uint16_t>(0x3C00 + x)); break;
        case TypeId::kFloat32: c.AppendValue<float>(static_cast<float>(x) * -1.5f); break;
        case TypeId::kFloat64: c.AppendValue<double>(static_cast<double>(x) / 7.0); break;
        case TypeId::kDecimal: {
          __int128 v = static_cast<__int128>(x) * 1234567 - 30000000;
          if (c.type.precision == 38) v = v * static_cast<__int128>(1000000000000000000LL) * 1000000000;
          c.AppendValue<__int128>(v);
          break;
        }
        case TypeId::kDate: c.AppendValue<int32_t>(static_cast<int32_t>(x * 400) - 10000); break;
        case TypeId::kTime: {
          int64_t per_ms =
              c.type.unit == TimeUnit::kMilli ? 1 : (c.type.unit == TimeUnit::kMicro ? 1000 : 1000000);
          c.AppendValue<int64_t>(static_cast<int64_t>(x) * 1700000 * per_ms);
          break;
        }
        case TypeId::kTimestamp:
          c.AppendValue<int64_t>(static_cast<int64_t>(x) * 86400123456LL - 2000000000000LL);
          break;
        case TypeId::kString:
          c.AppendBytes(std::string(x % 7, static_cast<char>('a' + x % 26)) + "é\xff");
          break;
        case TypeId::kBinary: c.AppendBytes(std::string(1 + x % 5, static_cast<char>(x * 7))); break;
        case TypeId::kFixedBinary: {
          uint8_t bytes[3] = {static_cast<uint8_t>(x), 0x80, static_cast<uint8_t>(255 - x)};
          c.AppendFixed(bytes);
          break;
        }
        case TypeId::kUuid: {
          uint8_t bytes[16];
          for (int b = 0; b < 16; ++b) bytes[b] = static_cast<uint8_t>(x * 13 + static_cast<uint64_t>(b));
          c.AppendFixed(bytes);
          break;
        }
        default: break;
      }
    }
  }
  return MakeBatch(schema, std::move(columns));
}

struct Variant {
  const char* name;
  ParquetWriterOptions options;
};

std::vector<Variant> Variants() {
  std::vector<Variant> v;
  v.push_back({"default", {}});
  ParquetWriterOptions o;
  o.data_page_version = 2;
  v.push_back({"v2", o});
  o = {};
  o.dictionary_enabled = false;
  o.codec = Codec::kZstd;
  v.push_back({"plain_zstd", o});
  o = {};
  o.dictionary_enabled = false;
  o.delta_encodings = true;
  o.codec = Codec::kNone;
  o.data_page_version = 2;
  v.push_back({"delta_v2_uncompressed", o});
  o = {};
  o.dictionary_max_bytes = 64;
  o.delta_encodings = true;
  o.codec = Codec::kGzip;
  o.page_max_rows = 37;
  v.push_back({"fallback_gzip_small_pages", o});
  o = {};
  o.codec = Codec::kLz4Raw;
  o.row_group_max_rows = 100;
  o.page_max_bytes = 200;
  v.push_back({"lz4_many_groups", o});
  o = {};
  o.codec = Codec::kBrotli;
  o.write_page_index = false;
  o.write_statistics = false;
  v.push_back({"brotli_no_stats", o});
  return v;
}

TEST(ParquetWriterRoundTrip, EveryPrimitiveTypeInEveryVariant) {
  floe::testing::TempDir dir;
  RecordBatch batch = AllPrimitives(500, 7);
  for (const Variant& variant : Variants()) {
    SCOPED_TRACE(variant.name);
    std::string path = dir.File(std::string(variant.name) + ".parquet");
    ASSERT_OK_AND_ASSIGN(auto written, WriteFile(path, batch.schema, {batch}, variant.options));
    EXPECT_EQ(written.num_rows, 500);
    EXPECT_EQ(written.file_size, static_cast<int64_t>(std::filesystem::file_size(path)));
    ASSERT_OK_AND_ASSIGN(auto back, ReadFile(path));
    EXPECT_EQ(back.schema, batch.schema) << SchemaToString(back.schema);
    EXPECT_EQ(back.rows, RenderRows(batch));
  }
}

TEST(ParquetWriterRoundTrip, ManyBatchesSplitAcrossRowGroups) {
  floe::testing::TempDir dir;
  std::vector<RecordBatch> batches;
  std::vector<std::string> expected;
  for (uint32_t i = 0; i < 5; ++i) {
    batches.push_back(AllPrimitives(123 + i * 50, i));
    for (auto& row : RenderRows(batches.back())) expected.push_back(row);
  }
  batches.insert(batches.begin() + 2, AllPrimitives(0, 0));  // an empty batch in between
  ParquetWriterOptions options;
  options.row_group_max_rows = 200;
  std::string path = dir.File("groups.parquet");
  ASSERT_OK_AND_ASSIGN(auto written, WriteFile(path, batches[0].schema, batches, options));
  ASSERT_OK_AND_ASSIGN(auto back, ReadFile(path));
  EXPECT_EQ(back.rows, expected);
  const int64_t total = static_cast<int64_t>(expected.size());
  EXPECT_EQ(written.num_rows, total);
  ASSERT_EQ(written.metadata.row_groups.size(), static_cast<size_t>((total + 199) / 200));
  for (size_t g = 0; g + 1 < written.metadata.row_groups.size(); ++g) {
    EXPECT_EQ(written.metadata.row_groups[g].num_rows, 200);
  }
  ASSERT_EQ(written.row_group_offsets.size(), written.metadata.row_groups.size());
  EXPECT_EQ(written.row_group_offsets[0], 4);
}

TEST(ParquetWriterRoundTrip, EmptyFileHasSchemaAndNoRowGroups) {
  floe::testing::TempDir dir;
  RecordBatch batch = AllPrimitives(0, 1);
  std::string path = dir.File("empty.parquet");
  ASSERT_OK_AND_ASSIGN(auto written, WriteFile(path, batch.schema, {batch}));
  EXPECT_EQ(written.num_rows, 0);
  EXPECT_TRUE(written.metadata.row_groups.empty());
  ASSERT_OK_AND_ASSIGN(auto back, ReadFile(path));
  EXPECT_EQ(back.schema, batch.schema);
  EXPECT_TRUE(back.rows.empty());
}

TEST(ParquetWriterRoundTrip, Int96TimestampsAndAnnotatedStrings) {
  // floe's reader maps INT96 to microseconds (the range Spark writes).
  DataType int96 = Timestamp(TimeUnit::kMicro, false);
  int96.annotation = DataType::Annotation::kInt96;
  DataType json = String();
  json.annotation = DataType::Annotation::kJson;
  DataType enumeration = String();
  enumeration.annotation = DataType::Annotation::kEnum;
  DataType bson = Binary();
  bson.annotation = DataType::Annotation::kBson;
  Schema schema = {MakeField("ts", int96), MakeField("j", json), MakeField("e", enumeration),
                   MakeField("bs", bson)};
  std::vector<Column> columns = {
      MakeColumn<int64_t>(int96, {int64_t{0}, std::nullopt, int64_t{-1}, int64_t{1700000000123456},
                                  int64_t{-86400000000001}}),
      MakeStrings(json, {"{}", "[1]", std::nullopt, "null", "\"x\""}),
      MakeStrings(enumeration, {"A", "B", "A", std::nullopt, "C"}),
      MakeStrings(bson, {std::string("\x05\0\0\0\0", 5), std::nullopt, "", "z", "y"}),
  };
  RecordBatch batch = MakeBatch(schema, std::move(columns));
  floe::testing::TempDir dir;
  std::string path = dir.File("annotated.parquet");
  ASSERT_OK_AND_ASSIGN(auto written, WriteFile(path, schema, {batch}));
  EXPECT_EQ(written.metadata.schema[1].type, Type::INT96);
  EXPECT_FALSE(written.columns[0].min.has_value());  // INT96 has no sort order
  EXPECT_EQ(written.metadata.schema[2].logical_type->kind, LogicalType::JSON);
  EXPECT_EQ(written.metadata.schema[3].logical_type->kind, LogicalType::ENUM);
  EXPECT_EQ(written.metadata.schema[4].logical_type->kind, LogicalType::BSON);
  ASSERT_OK_AND_ASSIGN(auto back, ReadFile(path));
  EXPECT_EQ(back.rows, RenderRows(batch));
  EXPECT_EQ(back.schema, schema);
  ASSERT_EQ(back.schema.size(), 4u);
  EXPECT_EQ(back.schema[0].type.annotation, DataType::Annotation::kInt96);
  EXPECT_EQ(back.schema[1].type.annotation, DataType::Annotation::kJson);
  EXPECT_EQ(back.schema[2].type.annotation, DataType::Annotation::kEnum);
  EXPECT_EQ(back.schema[3].type.annotation, DataType::Annotation::kBson);
}

TEST(ParquetWriterRoundTrip, NestedShapes) {
  DataType list_type = List(MakeField("element", Int64(), true, 11));
  DataType struct_type =
      Struct({MakeField("a", Int32(), false, 21), MakeField("b", String(), true, 22),
              MakeField("inner", List(MakeField("element", Int64(), false, 24)), true, 23)});
  DataType map_type = Map(MakeField("key", String(), false, 31), MakeField("value", list_type, true, 32));
  DataType list_of_structs =
      List(MakeField("element", Struct({MakeField("x", Float64(), true, 41)}), true, 42));
  Schema schema = {MakeField("l", list_type, true, 1), MakeField("s", struct_type, true, 2),
                   MakeField("m", map_type, true, 3), MakeField("ls", list_of_structs, false, 4)};

  std::vector<Column> columns;
  for (const Field& f : schema) columns.push_back(MakeEmptyColumn(f.type));
  for (int r = 0; r < 300; ++r) {
    // l: null, empty, [null], [r, r+1, ...]
    Column& l = columns[0];
    if (r % 5 == 0) {
      l.AppendNull();
    } else if (r % 5 == 1) {
      l.AppendListEnd();
    } else {
      for (int k = 0; k < r % 4 + 1; ++k) {
        if ((r + k) % 6 == 0) {
          l.children[0].AppendNull();
        } else {
          l.children[0].AppendValue<int64_t>(r * 10 + k);
        }
      }
      l.AppendListEnd();
    }
    // s: null struct every 7th row, otherwise members with a nested list
    Column& s = columns[1];
    if (r % 7 == 3) {
      s.AppendNull();
    } else {
      s.children[0].AppendValue<int32_t>(-r);
      if (r % 2) {
        s.children[1].AppendBytes("v" + std::to_string(r % 13));
      } else {
        s.children[1].AppendNull();
      }
      Column& inner = s.children[2];
      if (r % 3 == 0) {
        inner.AppendNull();
      } else {
        for (int k = 0; k < r % 3; ++k) inner.children[0].AppendValue<int64_t>(k - r);
        inner.AppendListEnd();
      }
      s.AppendStructSlot();
    }
    // m: map<string, list<int64>>
    Column& m = columns[2];
    if (r % 11 == 0) {
      m.AppendNull();
    } else {
      for (int k = 0; k < r % 3; ++k) {
        m.children[0].AppendBytes("k" + std::to_string(k));
        Column& value = m.children[1];
        if (k == 1) {
          value.AppendNull();
        } else {
          for (int j = 0; j < k + 1; ++j) value.children[0].AppendValue<int64_t>(j * r);
          value.AppendListEnd();
        }
      }
      m.AppendListEnd();
    }
    // ls: non-null list of nullable structs with nullable doubles
    Column& ls = columns[3];
    for (int k = 0; k < r % 3; ++k) {
      Column& element = ls.children[0];
      if ((r + k) % 4 == 0) {
        element.AppendNull();
      } else {
        if (k == 1) {
          element.children[0].AppendNull();
        } else {
          element.children[0].AppendValue<double>(r * 0.5 - k);
        }
        element.AppendStructSlot();
      }
    }
    ls.AppendListEnd();
  }
  RecordBatch batch = MakeBatch(schema, std::move(columns));
  for (const Column& c : batch.columns) ASSERT_EQ(c.Validate(), "");
  floe::testing::TempDir dir;
  for (const Variant& variant : Variants()) {
    SCOPED_TRACE(variant.name);
    std::string path = dir.File(std::string(variant.name) + ".parquet");
    ASSERT_OK_AND_ASSIGN(auto written, WriteFile(path, schema, {batch}, variant.options));
    ASSERT_OK_AND_ASSIGN(auto back, ReadFile(path));
    EXPECT_EQ(back.schema, schema) << SchemaToString(back.schema);
    EXPECT_EQ(back.rows, RenderRows(batch));
    // 6 leaves: l.element, s.a, s.b, s.inner.element, m.key, m.value.element, ls.element.x
    ASSERT_EQ(written.columns.size(), 7u);
    EXPECT_EQ(written.columns[0].path, (std::vector<std::string>{"l", "list", "element"}));
    EXPECT_EQ(written.columns[4].path, (std::vector<std::string>{"m", "key_value", "key"}));
  }
}

TEST(ParquetWriterRoundTrip, NullInRequiredFieldIsRejected) {
  Schema schema = {MakeField("x", Int32(), false)};
  Column c = MakeColumn<int32_t>(Int32(), {1, std::nullopt});
  floe::testing::TempDir dir;
  auto written = WriteFile(dir.File("bad.parquet"), schema, {MakeBatch(schema, {c})});
  ASSERT_FALSE(written.ok());
  EXPECT_EQ(written.status().kind(), ErrorKind::kInvalidArgument);
  EXPECT_NE(written.status().message().find("'x'"), std::string::npos) << written.status().ToString();
  EXPECT_FALSE(std::filesystem::exists(dir.File("bad.parquet")));
}

TEST(ParquetWriterRoundTrip, MismatchedBatchIsRejectedAndWriterStaysUsable) {
  Schema schema = {MakeField("x", Int32())};
  floe::testing::TempDir dir;
  auto io = MakeLocalFileIO();
  ASSERT_OK_AND_ASSIGN(auto out, io->Create(dir.File("f.parquet")));
  ASSERT_OK_AND_ASSIGN(auto writer, ParquetFileWriter::Open(std::move(out), schema, {}));
  Schema wrong = {MakeField("x", Int64())};
  Status bad = writer->Write(MakeBatch(wrong, {MakeColumn<int64_t>(Int64(), {1})}));
  EXPECT_EQ(bad.kind(), ErrorKind::kInvalidArgument);
  EXPECT_OK(writer->Write(MakeBatch(schema, {MakeColumn<int32_t>(Int32(), {5})})));
  ASSERT_OK_AND_ASSIGN(auto written, writer->Close());
  EXPECT_EQ(written.num_rows, 1);
}

TEST(ParquetWriterRoundTrip, DecimalThatDoesNotFitIsRejected) {
  Schema schema = {MakeField("d", Decimal(9, 0))};
  Column c = MakeColumn<__int128>(Decimal(9, 0), {static_cast<__int128>(1) << 40});
  floe::testing::TempDir dir;
  auto written = WriteFile(dir.File("d.parquet"), schema, {MakeBatch(schema, {c})});
  ASSERT_FALSE(written.ok());
  EXPECT_EQ(written.status().kind(), ErrorKind::kInvalidArgument);
}

}  // namespace
}  // namespace floe::parquet
