// JsonFileReader: layouts, BOM/CRLF, compression, chunking, sampling, limits.
#include "formats/json/json_file_reader.h"

#include <bzlib.h>
#include <gtest/gtest.h>

#include "columnar/json_format.h"
#include "compression/codec.h"
#include "io/memory_file.h"
#include "test_util.h"
#include "unit/formats/chunked_reader_rows.h"

namespace floe::json {
namespace {

std::shared_ptr<InputFile> File(const std::string& name, std::string_view text) {
  return std::make_shared<MemoryInputFile>(name, std::vector<uint8_t>(text.begin(), text.end()));
}

std::shared_ptr<InputFile> File(const std::string& name, const std::vector<uint8_t>& bytes) {
  return std::make_shared<MemoryInputFile>(name, bytes);
}

JsonReadOptions Options(bool infer = true) {
  JsonReadOptions options;
  options.decode.inference.infer_column_types = infer;
  return options;
}

std::string ReadAll(formats::ChunkedReader& reader, const std::vector<int>& columns = {}) {
  return testing::ReadAllRows(reader, columns);
}

TEST(JsonFileReaderTest, LinesWithBomCrlfAndBlankLines) {
  const std::string text =
      "\xEF\xBB\xBF{\"id\": 1, \"name\": \"a\"}\r\n\r\n   \n{\"id\": 2, \"name\": \"b\"}\r\n{\"id\": 3}";
  ASSERT_OK_AND_ASSIGN(auto reader, JsonFileReader::Open(File("x.jsonl", text), Options()));
  EXPECT_EQ(reader->num_rows(), 3);
  EXPECT_EQ(SchemaToString(reader->schema()), "id: int64\nname: string\n");
  EXPECT_EQ(ReadAll(*reader),
            "{\"id\":1,\"name\":\"a\"}\n{\"id\":2,\"name\":\"b\"}\n{\"id\":3,\"name\":null}\n");
}

TEST(JsonFileReaderTest, EveryCompressionByMagicBytes) {
  std::string text;
  for (int i = 0; i < 2000; ++i)
    text += "{\"i\": " + std::to_string(i) + ", \"s\": \"row " + std::to_string(i) + "\"}\n";
  const std::span<const uint8_t> raw(reinterpret_cast<const uint8_t*>(text.data()), text.size());
  std::vector<std::pair<std::string, std::vector<uint8_t>>> files;
  for (auto [codec, name] : {std::pair{Codec::kGzip, "a.jsonl.gz"}, std::pair{Codec::kZstd, "a.jsonl.zst"},
                             std::pair{Codec::kLz4Frame, "a.jsonl.lz4"}}) {
    std::vector<uint8_t> packed;
    ASSERT_OK(Compress(codec, raw, 0, &packed));
    files.emplace_back(name, packed);
  }
  std::vector<uint8_t> bz(text.size() + text.size() / 100 + 600);
  unsigned int bz_size = static_cast<unsigned int>(bz.size());
  ASSERT_EQ(BZ2_bzBuffToBuffCompress(reinterpret_cast<char*>(bz.data()), &bz_size, text.data(),
                                     static_cast<unsigned int>(text.size()), 9, 0, 0),
            BZ_OK);
  bz.resize(bz_size);
  files.emplace_back("a.jsonl.bz2", bz);
  // Concatenated gzip members decode one after another.
  std::vector<uint8_t> two = files[0].second;
  two.insert(two.end(), files[0].second.begin(), files[0].second.end());
  files.emplace_back("twice.gz", two);
  files.emplace_back("no-extension", files[1].second);

  JsonReadOptions options = Options();
  options.limits.chunk_rows = 300;
  for (const auto& [name, bytes] : files) {
    ASSERT_OK_AND_ASSIGN(auto reader, JsonFileReader::Open(File(name, bytes), options));
    const int64_t expected = name == "twice.gz" ? 4000 : 2000;
    EXPECT_EQ(reader->num_rows(), expected) << name;
    const std::string rows = ReadAll(*reader);  // back to front: restarts the decompression
    EXPECT_EQ(std::count(rows.begin(), rows.end(), '\n'), expected) << name;
    EXPECT_NE(rows.find("{\"i\":1999,\"s\":\"row 1999\"}"), std::string::npos) << name;
  }
  // A name that promises a codec the bytes do not have, and a truncated file.
  auto lying = JsonFileReader::Open(File("a.jsonl.gz", text), options);
  ASSERT_FALSE(lying.ok());
  EXPECT_NE(lying.status().message().find("a.jsonl.gz: the name says gzip"), std::string::npos);
  std::vector<uint8_t> truncated(files[1].second.begin(), files[1].second.end() - 10);
  auto cut = JsonFileReader::Open(File("cut.zst", truncated), options);
  ASSERT_FALSE(cut.ok());
  EXPECT_NE(cut.status().message().find("cut.zst"), std::string::npos) << cut.status().message();
}

TEST(JsonFileReaderTest, OuterArrayAndMultiLineValues) {
  const std::string pretty =
      "[\n  {\"a\": 1,\n   \"b\": [1, 2]},\n  {\"a\": 2, \"b\": \"]\\\"[\"}\n ,{\"a\": 3}\n]\n";
  JsonReadOptions options = Options();
  options.format = "json";
  options.strip_outer_array = true;
  options.limits.chunk_rows = 1;
  ASSERT_OK_AND_ASSIGN(auto reader, JsonFileReader::Open(File("x.json", pretty), options));
  EXPECT_EQ(reader->num_chunks(), 3);
  EXPECT_EQ(SchemaToString(reader->schema()), "a: int64\nb: string\n");
  EXPECT_EQ(ReadAll(*reader),
            "{\"a\":1,\"b\":\"[1, 2]\"}\n{\"a\":2,\"b\":\"]\\\"[\"}\n{\"a\":3,\"b\":null}\n");

  options.strip_outer_array = false;
  ASSERT_OK_AND_ASSIGN(
      reader, JsonFileReader::Open(File("y.json", "{\"a\":\n 1}\n\n{\"a\": 2} {\"a\": 3}"), options));
  EXPECT_EQ(reader->num_rows(), 3);
  EXPECT_EQ(ReadAll(*reader), "{\"a\":1}\n{\"a\":2}\n{\"a\":3}\n");

  options.strip_outer_array = true;
  for (std::string_view broken :
       {"{\"a\": 1}", "[{\"a\": 1}", "[{\"a\": 1}] x", "[{\"a\": \"open]", "[1,,2]"}) {
    auto failed = JsonFileReader::Open(File("bad.json", broken), options);
    ASSERT_FALSE(failed.ok()) << broken;
    EXPECT_EQ(failed.status().kind(), ErrorKind::kCorruption) << broken;
    EXPECT_NE(failed.status().message().find("bad.json: line 1, byte"), std::string::npos)
        << failed.status().message();
  }
}

TEST(JsonFileReaderTest, BrokenLinesAreRescuedWithTheirLineNumbers) {
  const std::string text = "{\"a\": 1}\n{\"a\": oops}\n\n{\"a\": \"x\"}\n";
  JsonReadOptions options = Options();
  options.decode.known = {MakeField("a", Int64())};
  ASSERT_OK_AND_ASSIGN(auto reader, JsonFileReader::Open(File("s3://b/in.jsonl", text), options));
  EXPECT_EQ(SchemaToString(reader->schema()), "a: int64\n_rescued_data: string\n");
  const std::string rows = ReadAll(*reader);
  EXPECT_NE(rows.find(R"("_raw\":\"{\\\"a\\\": oops}\")"), std::string::npos) << rows;
  EXPECT_NE(rows.find(R"(\"_file_path\":\"s3://b/in.jsonl\",\"_line\":2)"), std::string::npos) << rows;
  EXPECT_NE(rows.find(R"({\"a\":\"x\",\"_file_path\":\"s3://b/in.jsonl\",\"_line\":4})"), std::string::npos)
      << rows;

  options.decode.on_broken = BadDataPolicy::kFail;
  ASSERT_OK_AND_ASSIGN(reader, JsonFileReader::Open(File("s3://b/in.jsonl", text), options));
  auto failed = reader->ReadChunk(0, {});
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.status().message().find("s3://b/in.jsonl: line 2, byte"), std::string::npos)
      << failed.status().message();
}

TEST(JsonFileReaderTest, ASampleDecidesTheSchemaAndLaterSurprisesAreRescued) {
  std::string text;
  for (int i = 0; i < 100; ++i) text += "{\"n\": " + std::to_string(i) + "}\n";
  text += "{\"n\": \"late string\", \"late\": true}\n";
  JsonReadOptions options = Options();
  options.limits.chunk_rows = 10;
  options.schema_sample_bytes = 50;  // the first chunk only
  ASSERT_OK_AND_ASSIGN(auto reader, JsonFileReader::Open(File("x.jsonl", text), options));
  EXPECT_FALSE(reader->sampled_whole_file());
  EXPECT_EQ(SchemaToString(reader->schema()), "n: int64\n_rescued_data: string\n");
  ASSERT_OK_AND_ASSIGN(RecordBatch last, reader->ReadChunk(reader->num_chunks() - 1, {}));
  std::string row;
  AppendJsonRow(last, last.num_rows - 1, &row);
  EXPECT_EQ(
      row,
      R"({"n":null,"_rescued_data":"{\"n\":\"late string\",\"late\":true,\"_file_path\":\"x.jsonl\",\"_line\":101}"})");
  // The whole file as the sample: both fields, no rescue column.
  options.schema_sample_bytes = 0;
  ASSERT_OK_AND_ASSIGN(reader, JsonFileReader::Open(File("x.jsonl", text), options));
  EXPECT_TRUE(reader->sampled_whole_file());
  EXPECT_EQ(SchemaToString(reader->schema()), "n: string\nlate: bool\n");
}

TEST(JsonFileReaderTest, ColumnSubsetsSeeTheSameRows) {
  std::string text;
  for (int i = 0; i < 50; ++i) {
    text += i == 17 ? "{\"k\": 17, \"v\": [1,}\n"
                    : "{\"k\": " + std::to_string(i) + ", \"v\": \"x" + std::to_string(i) + "\"}\n";
  }
  JsonReadOptions options = Options();
  options.limits.chunk_rows = 8;
  ASSERT_OK_AND_ASSIGN(auto reader, JsonFileReader::Open(File("x.jsonl", text), options));
  ASSERT_EQ(SchemaToString(reader->schema()), "k: int64\nv: string\n_rescued_data: string\n");
  const std::string keys = ReadAll(*reader, {0});
  const std::string all = ReadAll(*reader, {2, 0});
  EXPECT_NE(keys.find("{\"k\":null}"), std::string::npos);  // the broken line is null in every projection
  EXPECT_EQ(std::count(keys.begin(), keys.end(), '\n'), 50);
  EXPECT_NE(all.find("\"_raw\\\":\\\"{\\\\\\\"k\\\\\\\": 17"), std::string::npos) << all;
  EXPECT_FALSE(reader->ReadChunk(0, {7}).ok());
  EXPECT_FALSE(reader->ReadChunk(99, {}).ok());
}

// A chunk of lines is read and decoded a block (256 KiB) at a time: lines
// that straddle blocks, a line longer than a block, CRLF and blank lines at
// block edges must decode as when each line is a chunk of its own, and a
// broken line keeps its line number.
TEST(JsonFileReaderTest, LinesAcrossDecodeBlocksKeepTheirValuesAndNumbers) {
  std::string text;
  int line = 0;
  int broken_line = 0;
  const std::string long_value(600 * 1024, 'y');
  for (int i = 0; i < 2000; ++i) {
    ++line;
    if (i == 700) {
      text += "{\"id\": 700, \"s\": \"" + long_value + "\"}\n";
    } else if (i == 701) {
      text += "{\"id\": 701, \"s\": broken}\r\n";
      broken_line = line;
    } else if (i % 97 == 0) {
      text += "\r\n";
    } else {
      text += "{\"id\": " + std::to_string(i) + ", \"s\": \"" +
              std::string(static_cast<size_t>(i % 1500), 'a') + "\"}" + (i % 2 ? "\r\n" : "\n");
    }
  }
  JsonReadOptions options = Options();
  options.decode.known = {MakeField("id", Int64()), MakeField("s", String())};
  options.decode.infer_new_fields = false;
  ASSERT_OK_AND_ASSIGN(auto whole, JsonFileReader::Open(File("b.jsonl", text), options));
  ASSERT_EQ(whole->num_chunks(), 1);
  options.limits.chunk_rows = 1;
  ASSERT_OK_AND_ASSIGN(auto single, JsonFileReader::Open(File("b.jsonl", text), options));
  ASSERT_GT(single->num_chunks(), 1900);
  const std::string rows = ReadAll(*whole);
  EXPECT_EQ(rows, ReadAll(*single));
  EXPECT_NE(rows.find("{\"id\":700,\"s\":\"" + long_value + "\""), std::string::npos);
  EXPECT_NE(rows.find("\\\"_line\\\":" + std::to_string(broken_line) + "}"), std::string::npos);
  EXPECT_EQ(std::count(rows.begin(), rows.end(), '\n'), whole->num_rows());

  options.limits.chunk_rows = 65536;
  options.decode.on_broken = BadDataPolicy::kFail;
  ASSERT_OK_AND_ASSIGN(whole, JsonFileReader::Open(File("b.jsonl", text), options));
  auto failed = whole->ReadChunk(0, {});
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.status().message().find("b.jsonl: line " + std::to_string(broken_line) + ", byte"),
            std::string::npos)
      << failed.status().message();
}

TEST(JsonFileReaderTest, OversizedRecordsAreNeverHeldWhole) {
  std::string text = "{\"a\": 1}\n{\"a\": \"" + std::string(5000, 'x') + "\"}\n{\"a\": 3}\n";
  JsonReadOptions options = Options();
  options.limits.max_record_bytes = 1000;
  ASSERT_OK_AND_ASSIGN(auto reader, JsonFileReader::Open(File("big.jsonl", text), options));
  EXPECT_EQ(reader->num_rows(), 3);
  EXPECT_EQ(reader->num_chunks(), 3);
  EXPECT_EQ(SchemaToString(reader->schema()), "a: int64\n_rescued_data: string\n");
  ASSERT_OK_AND_ASSIGN(RecordBatch big, reader->ReadChunk(1, {}));
  ASSERT_EQ(big.num_rows, 1);
  EXPECT_TRUE(big.columns[0].IsNull(0));
  EXPECT_NE(big.columns[1].StringAt(0).find("exceeds max_record_bytes (1000)"), std::string_view::npos);
  EXPECT_LT(big.columns[1].StringAt(0).size(), 1300u);
  EXPECT_FALSE(JsonFileReader::Open(File("x.jsonl", "{}"),
                                    [] {
                                      JsonReadOptions o;
                                      o.format = "xml";
                                      return o;
                                    }())
                   .ok());
}

}  // namespace
}  // namespace floe::json

namespace floe::json {
namespace {

std::string ScanRecords(JsonLayout layout, const std::vector<std::string_view>& blocks) {
  formats::TextChunkLimits limits;
  limits.chunk_rows = 1;
  formats::TextChunker chunker(limits, 0, 1);
  JsonRecordScanner scanner(layout, &chunker, 0, "x");
  for (std::string_view block : blocks) EXPECT_OK(scanner.Scan(block));
  EXPECT_OK(scanner.Finish());
  std::string out;
  for (const formats::TextChunk& chunk : chunker.Finish()) {
    out += std::to_string(chunk.offset) + "+" + std::to_string(chunk.length) + "@" +
           std::to_string(chunk.first_line) + " ";
  }
  return out;
}

TEST(JsonRecordScannerTest, BlockBoundariesDoNotMoveRecords) {
  const std::vector<std::pair<JsonLayout, std::string>> cases = {
      {JsonLayout::kLines, "{\"a\": 1}\r\n\n  \n{\"b\": \"x\\\"}\"}\n{\"c\": 3}"},
      {JsonLayout::kValues, "{\"a\":\n 1} 17 \"s\\\"t\" [1, [2]]\ntrue{\"x\":{}}"},
      {JsonLayout::kArray, "[\n {\"a\": \"]\"},\n 5 , [1,2] ,\"x\"\n]\n"},
  };
  for (const auto& [layout, text] : cases) {
    const std::string whole = ScanRecords(layout, {text});
    EXPECT_NE(whole, "");
    for (size_t split = 0; split <= text.size(); ++split) {
      const std::string_view view(text);
      EXPECT_EQ(ScanRecords(layout, {view.substr(0, split), view.substr(split)}), whole)
          << "split at " << split;
    }
  }
}

}  // namespace
}  // namespace floe::json
