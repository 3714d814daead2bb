// ParquetFileWriter with a ThreadPool (column chunks shredded and encoded
// concurrently) must write exactly the bytes of the serial writer: random
// schemas with nested fields, several row groups and batches, every page
// version, codec and encoding choice of the round-trip variants.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <random>

#include "common/thread_pool.h"
#include "writer_test_util.h"

namespace floe::parquet {
namespace {

using testing::MakeBatch;
using testing::ReadFile;
using testing::RenderRows;
using testing::WriteFile;

class RandomTable {
 public:
  explicit RandomTable(uint32_t seed) : rng_(seed) {}

  Schema MakeSchema() {
    Schema schema;
    const int fields = Pick(1, 7);
    for (int i = 0; i < fields; ++i) {
      schema.push_back(MakeField("f" + std::to_string(i), RandomType(0), Pick(0, 3) != 0, NextId()));
    }
    return schema;
  }

  RecordBatch MakeRows(const Schema& schema, int64_t rows) {
    std::vector<Column> columns;
    for (const Field& field : schema) columns.push_back(MakeEmptyColumn(field.type));
    for (int64_t r = 0; r < rows; ++r) {
      for (size_t k = 0; k < schema.size(); ++k) AppendRandom(schema[k], &columns[k]);
    }
    return MakeBatch(schema, std::move(columns));
  }

 private:
  int Pick(int low, int high) { return std::uniform_int_distribution<int>(low, high)(rng_); }
  int32_t NextId() { return ++next_id_; }

  DataType RandomType(int depth) {
    const int choice = Pick(0, depth >= 2 ? 7 : 10);
    switch (choice) {
      case 0: return Bool();
      case 1: return Int32();
      case 2: return Int64();
      case 3: return Float64();
      case 4: return String();
      case 5: return Decimal(18, 3);
      case 6: return Timestamp(TimeUnit::kMicro, true);
      case 7: return Binary();
      case 8: {
        std::vector<Field> members;
        const int count = Pick(1, 3);
        for (int i = 0; i < count; ++i) {
          members.push_back(
              MakeField("m" + std::to_string(i), RandomType(depth + 1), Pick(0, 2) != 0, NextId()));
        }
        return Struct(std::move(members));
      }
      case 9: return List(MakeField("element", RandomType(depth + 1), Pick(0, 1) != 0, NextId()));
      default:
        return Map(MakeField("key", String(), false, NextId()),
                   MakeField("value", RandomType(depth + 1), true, NextId()));
    }
  }

  // Values repeat often (so dictionaries are used) but not always (so some
  // chunks fall back to PLAIN or delta).
  int64_t RandomValue() { return Pick(0, 3) == 0 ? Pick(0, 1'000'000) : Pick(0, 40); }

  void AppendRandom(const Field& field, Column* column) {
    if (field.nullable && Pick(0, 5) == 0) {
      column->AppendNull();
      return;
    }
    switch (column->type.id) {
      case TypeId::kBool: column->AppendValue<uint8_t>(static_cast<uint8_t>(Pick(0, 1))); break;
      case TypeId::kInt32: column->AppendValue<int32_t>(static_cast<int32_t>(RandomValue()) - 20); break;
      case TypeId::kInt64: column->AppendValue<int64_t>(RandomValue() * 1'000'003); break;
      case TypeId::kFloat64: column->AppendValue<double>(static_cast<double>(RandomValue()) / 7.0); break;
      case TypeId::kDecimal: column->AppendValue<__int128>(static_cast<__int128>(RandomValue()) - 5); break;
      case TypeId::kTimestamp: column->AppendValue<int64_t>(RandomValue() * 86'400'000'000LL); break;
      case TypeId::kString:
      case TypeId::kBinary: column->AppendBytes("v" + std::to_string(RandomValue())); break;
      case TypeId::kStruct:
        for (size_t i = 0; i < column->children.size(); ++i) {
          AppendRandom(column->type.children[i], &column->children[i]);
        }
        column->AppendStructSlot();
        break;
      case TypeId::kList: {
        const int count = Pick(0, 3);
        for (int i = 0; i < count; ++i) AppendRandom(column->type.children[0], &column->children[0]);
        column->AppendListEnd();
        break;
      }
      case TypeId::kMap: {
        const int count = Pick(0, 3);
        for (int i = 0; i < count; ++i) {
          column->children[0].AppendBytes("k" + std::to_string(i));
          AppendRandom(column->type.children[1], &column->children[1]);
        }
        column->AppendListEnd();
        break;
      }
      default: FAIL() << "type not generated: " << column->type.ToString();
    }
  }

  std::mt19937 rng_;
  int32_t next_id_ = 0;
};

std::string FileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::vector<std::pair<const char*, ParquetWriterOptions>> Variants() {
  std::vector<std::pair<const char*, ParquetWriterOptions>> variants;
  ParquetWriterOptions o;
  o.row_group_max_rows = 300;
  variants.emplace_back("snappy_v1", o);
  o = {};
  o.row_group_max_rows = 250;
  o.data_page_version = 2;
  o.codec = Codec::kZstd;
  o.page_max_rows = 64;
  variants.emplace_back("zstd_v2_small_pages", o);
  o = {};
  o.row_group_max_bytes = 4096;
  o.row_group_max_rows = 400;
  o.dictionary_max_bytes = 64;
  o.delta_encodings = true;
  o.codec = Codec::kGzip;
  variants.emplace_back("gzip_delta_fallback_byte_limited_groups", o);
  o = {};
  o.dictionary_enabled = false;
  o.codec = Codec::kNone;
  o.write_page_index = false;
  o.row_group_max_rows = 128;
  variants.emplace_back("plain_uncompressed_no_page_index", o);
  return variants;
}

TEST(ParquetWriterParallel, ByteIdenticalToSerialOnRandomSchemas) {
  ThreadPool pool(3);
  floe::testing::TempDir dir;
  for (uint32_t seed = 1; seed <= 24; ++seed) {
    RandomTable random(seed);
    const Schema schema = random.MakeSchema();
    std::vector<RecordBatch> batches;
    const int batch_count = 2 + static_cast<int>(seed % 3);  // at least 500 rows
    for (int b = 0; b < batch_count; ++b) {
      batches.push_back(random.MakeRows(schema, 250 + static_cast<int64_t>((seed * 97 + b * 31) % 400)));
      for (const Column& c : batches.back().columns) ASSERT_EQ(c.Validate(), "");
    }
    for (const auto& [name, options] : Variants()) {
      SCOPED_TRACE("seed " + std::to_string(seed) + ", " + name + ", schema " + SchemaToString(schema));
      const std::string serial_path = dir.File("serial-" + std::to_string(seed) + name + ".parquet");
      const std::string parallel_path = dir.File("parallel-" + std::to_string(seed) + name + ".parquet");
      ASSERT_OK_AND_ASSIGN(auto serial, WriteFile(serial_path, schema, batches, options));
      ParquetWriterOptions pooled = options;
      pooled.pool = &pool;
      ASSERT_OK_AND_ASSIGN(auto parallel, WriteFile(parallel_path, schema, batches, pooled));
      const std::string serial_bytes = FileBytes(serial_path);
      ASSERT_FALSE(serial_bytes.empty());
      ASSERT_EQ(serial_bytes, FileBytes(parallel_path));
      EXPECT_EQ(serial.metadata, parallel.metadata);
      EXPECT_EQ(serial.row_group_offsets, parallel.row_group_offsets);
      ASSERT_EQ(serial.columns.size(), parallel.columns.size());
      for (size_t i = 0; i < serial.columns.size(); ++i) {
        EXPECT_EQ(serial.columns[i].min, parallel.columns[i].min);
        EXPECT_EQ(serial.columns[i].max, parallel.columns[i].max);
        EXPECT_EQ(serial.columns[i].null_count, parallel.columns[i].null_count);
        EXPECT_EQ(serial.columns[i].compressed_bytes, parallel.columns[i].compressed_bytes);
      }
      EXPECT_GT(parallel.metadata.row_groups.size(), 1u);
      if (seed % 6 == 0) {  // the parallel file also reads back to the rows written
        ASSERT_OK_AND_ASSIGN(auto back, ReadFile(parallel_path));
        std::vector<std::string> expected;
        for (const RecordBatch& batch : batches) {
          for (auto& row : RenderRows(batch)) expected.push_back(std::move(row));
        }
        EXPECT_EQ(back.rows, expected);
      }
    }
  }
}

TEST(ParquetWriterParallel, ErrorInOneColumnFailsTheFileAsSerialDoes) {
  ThreadPool pool(2);
  Schema schema = {MakeField("a", Int64(), true, 1), MakeField("required", Int32(), false, 2),
                   MakeField("c", String(), true, 3)};
  std::vector<Column> columns;
  for (const Field& f : schema) columns.push_back(MakeEmptyColumn(f.type));
  for (int r = 0; r < 10; ++r) {
    columns[0].AppendValue<int64_t>(r);
    if (r == 7) {
      columns[1].AppendNull();  // a null the non-nullable field cannot hold
    } else {
      columns[1].AppendValue<int32_t>(r);
    }
    columns[2].AppendBytes("x");
  }
  RecordBatch batch = MakeBatch(schema, std::move(columns));
  floe::testing::TempDir dir;
  ParquetWriterOptions serial_options;
  auto serial = WriteFile(dir.File("serial.parquet"), schema, {batch}, serial_options);
  ParquetWriterOptions pooled = serial_options;
  pooled.pool = &pool;
  auto parallel = WriteFile(dir.File("parallel.parquet"), schema, {batch}, pooled);
  ASSERT_FALSE(serial.ok());
  ASSERT_FALSE(parallel.ok());
  EXPECT_EQ(serial.status().kind(), parallel.status().kind());
  std::string message = parallel.status().message();
  const size_t name = message.find("parallel.parquet");
  ASSERT_NE(name, std::string::npos);
  message.replace(name, 16, "serial.parquet");
  EXPECT_EQ(serial.status().message(), message);
  EXPECT_NE(parallel.status().message().find("required"), std::string::npos);
}

}  // namespace
}  // namespace floe::parquet
