// CsvFileReader and its grammar, sniffer, bad-row rescue and encodings.
#include "formats/csv/csv_file_reader.h"

#include <gtest/gtest.h>

#include "columnar/json_format.h"
#include "formats/csv/csv_records.h"
#include "io/memory_file.h"
#include "test_util.h"
#include "unit/formats/chunked_reader_rows.h"

namespace floe::csv {
namespace {

std::shared_ptr<InputFile> File(const std::string& name, std::string_view text) {
  return std::make_shared<MemoryInputFile>(name, std::vector<uint8_t>(text.begin(), text.end()));
}

CsvReadOptions Options(bool infer = true) {
  CsvReadOptions options;
  options.inference.infer_column_types = infer;
  return options;
}

std::string ReadAll(formats::ChunkedReader& reader, const std::vector<int>& columns = {}) {
  return testing::ReadAllRows(reader, columns);
}

TEST(CsvTokenizerTest, Rfc4180Fields) {
  const std::string text = "a,\"b,\"\"c\"\"\",\r\n\"multi\nline\",,x\n\n\"open,\nnext,1\n";
  CsvTokenizer tokenizer(CsvDialect{}, text, 1);
  CsvRecord record;
  ASSERT_TRUE(tokenizer.Next(&record));
  EXPECT_EQ(record.line, 1);
  ASSERT_EQ(record.fields.size(), 3u);
  EXPECT_EQ(record.fields[1], "b,\"c\"");
  EXPECT_EQ(record.fields[2], "");
  EXPECT_TRUE(record.quoted[1]);
  ASSERT_TRUE(tokenizer.Next(&record));
  EXPECT_EQ(record.line, 2);
  EXPECT_EQ(record.fields[0], "multi\nline");
  ASSERT_TRUE(tokenizer.Next(&record));
  EXPECT_EQ(record.line, 5);
  EXPECT_EQ(record.error, "unterminated quote");
  EXPECT_EQ(record.raw, "\"open,");
  ASSERT_TRUE(tokenizer.Next(&record));
  EXPECT_EQ(record.line, 6);
  EXPECT_EQ(record.fields.size(), 2u);
  EXPECT_FALSE(tokenizer.Next(&record));
}

TEST(CsvFileReaderTest, DuckDbStyleFileWithEveryType) {
  const std::string text =
      "id,name,amount,ok,day,at,at_tz,score,note\r\n"
      "1,\"Smith, J\",12.50,true,2020-01-02,2020-01-02 03:04:05.123456,2020-01-02 "
      "03:04:05+00,1.5e3,\"line1\nline2\"\r\n"
      "2,,-0.25,false,2021-12-31,2021-12-31 23:59:59,2021-12-31 23:59:59+01,2,\"\"\r\n"
      "3,Ünïcødé,,,,,,,\r\n";
  ASSERT_OK_AND_ASSIGN(auto reader, CsvFileReader::Open(File("d.csv", text), Options()));
  EXPECT_TRUE(reader->header());
  EXPECT_EQ(reader->dialect().delimiter, ',');
  EXPECT_EQ(SchemaToString(reader->schema()),
            "id: int64\nname: string\namount: decimal(38,2)\nok: bool\nday: date\nat: timestamp[us]\n"
            "at_tz: timestamp[us, utc]\nscore: float64\nnote: string\n");
  EXPECT_EQ(
      ReadAll(*reader),
      R"({"id":1,"name":"Smith, J","amount":"12.50","ok":true,"day":"2020-01-02","at":"2020-01-02T03:04:05.123456","at_tz":"2020-01-02T03:04:05.000000Z","score":1500,"note":"line1\nline2"}
{"id":2,"name":null,"amount":"-0.25","ok":false,"day":"2021-12-31","at":"2021-12-31T23:59:59.000000","at_tz":"2021-12-31T22:59:59.000000Z","score":2,"note":""}
{"id":3,"name":"Ünïcødé","amount":null,"ok":null,"day":null,"at":null,"at_tz":null,"score":null,"note":null}
)");
}

TEST(CsvFileReaderTest, SnifferFindsDialectAndHeader) {
  ASSERT_OK_AND_ASSIGN(auto semi, CsvFileReader::Open(File("s.csv", "a;b\n'x;1';2\n'y';3\n"), Options()));
  EXPECT_EQ(semi->dialect().delimiter, ';');
  EXPECT_EQ(semi->dialect().quote, '\'');
  EXPECT_EQ(ReadAll(*semi), "{\"a\":\"x;1\",\"b\":2}\n{\"a\":\"y\",\"b\":3}\n");

  ASSERT_OK_AND_ASSIGN(auto tabs, CsvFileReader::Open(File("t.tsv", "1\tx\n2\ty\n"), Options()));
  EXPECT_EQ(tabs->dialect().delimiter, '\t');
  EXPECT_FALSE(tabs->header());  // typed columns: the first row is data
  EXPECT_EQ(SchemaToString(tabs->schema()), "column0: int64\ncolumn1: string\n");

  ASSERT_OK_AND_ASSIGN(auto pipes,
                       CsvFileReader::Open(File("p.csv", "name|city\nann|oslo\nbob|rome\n"), Options()));
  EXPECT_EQ(pipes->dialect().delimiter, '|');
  EXPECT_TRUE(pipes->header());

  CsvReadOptions forced = Options();
  forced.header = false;
  forced.delimiter = ",";
  ASSERT_OK_AND_ASSIGN(auto plain, CsvFileReader::Open(File("n.csv", "a,b\n1,2\n"), forced));
  EXPECT_EQ(SchemaToString(plain->schema()), "column0: string\ncolumn1: string\n");
  EXPECT_EQ(plain->num_rows(), 2);
}

// AWS DMS writes CSV without a header, and Op first in CDC files only: a
// headerless file takes the last of column_names, as many as it has fields.
TEST(CsvFileReaderTest, HeaderlessFilesTakeTheLastOfColumnNames) {
  CsvReadOptions options = Options(false);
  options.header = false;
  options.column_names = {"Op", "AR_H_CHANGE_SEQ", "id", "name"};
  ASSERT_OK_AND_ASSIGN(
      auto cdc,
      CsvFileReader::Open(File("20240308-1.csv", "U,20240308000000000000000000000000007,1,ann\n"), options));
  EXPECT_EQ(SchemaToString(cdc->schema()), "Op: string\nAR_H_CHANGE_SEQ: string\nid: string\nname: string\n");
  EXPECT_EQ(ReadAll(*cdc),
            "{\"Op\":\"U\",\"AR_H_CHANGE_SEQ\":\"20240308000000000000000000000000007\",\"id\":\"1\",\"name\":"
            "\"ann\"}\n");
  ASSERT_OK_AND_ASSIGN(auto load, CsvFileReader::Open(File("LOAD00000001.csv", "1,ann\n2,bob\n"), options));
  EXPECT_EQ(SchemaToString(load->schema()), "id: string\nname: string\n");
  auto wider = CsvFileReader::Open(File("wide.csv", "a,b,c,d,e\n"), options);
  ASSERT_FALSE(wider.ok());
  EXPECT_NE(
      wider.status().message().find("wide.csv: its records have 5 fields, but column_names names 4 columns"),
      std::string::npos)
      << wider.status().message();
}

TEST(CsvFileReaderTest, BadRowsAreRescuedAndTheRestLands) {
  const std::string text = "k,v\n1,a\n2,b,extra\n3\n4,\"never closed\n5,e\n6,\xff\n7,g\n";
  CsvReadOptions options = Options();
  options.quote = "\"";  // 3 bad records in 8 are too many to sniff the quote from
  options.known = {MakeField("k", Int64())};
  ASSERT_OK_AND_ASSIGN(auto reader, CsvFileReader::Open(File("bad.csv", text), options));
  EXPECT_EQ(reader->num_rows(), 7);
  EXPECT_EQ(SchemaToString(reader->schema()), "k: int64\nv: string\n_rescued_data: string\n");
  const std::string rows = ReadAll(*reader);
  EXPECT_NE(rows.find("{\"k\":1,\"v\":\"a\",\"_rescued_data\":null}"), std::string::npos) << rows;
  EXPECT_NE(
      rows.find(
          R"(\"_raw\":\"2,b,extra\",\"_error\":\"expected 2 fields, found 3\",\"_file_path\":\"bad.csv\",\"_line\":3)"),
      std::string::npos)
      << rows;
  EXPECT_NE(rows.find(R"(\"_error\":\"expected 2 fields, found 1\")"), std::string::npos);
  EXPECT_NE(rows.find(R"(\"_raw\":\"4,\\\"never closed\",\"_error\":\"unterminated quote\")"),
            std::string::npos)
      << rows;
  EXPECT_NE(rows.find("{\"k\":5,\"v\":\"e\",\"_rescued_data\":null}"), std::string::npos) << rows;
  EXPECT_NE(rows.find(R"(invalid UTF-8 at byte 3\",\"_file_path\":\"bad.csv\",\"_line\":7)"),
            std::string::npos)
      << rows;
  EXPECT_NE(rows.find("{\"k\":7,\"v\":\"g\",\"_rescued_data\":null}"), std::string::npos) << rows;

  options.on_bad_record = formats::BadDataPolicy::kFail;
  ASSERT_OK_AND_ASSIGN(reader, CsvFileReader::Open(File("bad.csv", text), options));
  auto failed = reader->ReadChunk(0, {});
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.status().message(), "bad.csv: line 3: expected 2 fields, found 3");
}

TEST(CsvFileReaderTest, ValuesThatDoNotFitAreRescuedPerColumn) {
  const std::string text = "amount,n\n1.25,7\n1.255,x\n";
  CsvReadOptions options = Options();
  ASSERT_OK_AND_ASSIGN(options.schema_hints, formats::SchemaHints::Parse("amount decimal(10,2), n int"));
  ASSERT_OK_AND_ASSIGN(auto reader, CsvFileReader::Open(File("m.csv", text), options));
  EXPECT_EQ(ReadAll(*reader),
            R"({"amount":"1.25","n":7,"_rescued_data":null}
{"amount":null,"n":null,"_rescued_data":"{\"amount\":\"1.255\",\"n\":\"x\",\"_file_path\":\"m.csv\",\"_line\":3}"}
)");
  options.on_mismatch = formats::BadDataPolicy::kFail;
  ASSERT_OK_AND_ASSIGN(reader, CsvFileReader::Open(File("m.csv", text), options));
  auto failed = reader->ReadChunk(0, {});
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.status().message(), "m.csv: line 3: column amount: '1.255' does not fit decimal(10,2)");
}

TEST(CsvFileReaderTest, EncodingsSkipRowsEscapesAndNullString) {
  CsvReadOptions options = Options(false);
  options.encoding = "latin-1";
  options.skip_rows = 2;
  options.null_string = "NA";
  options.escape = "\\";
  options.quote = "\"";
  const std::string text = "junk line\nmore junk\nname,v\n\"caf\xe9 \\\"x\\\"\",NA\n\"NA\",1\n";
  ASSERT_OK_AND_ASSIGN(auto reader, CsvFileReader::Open(File("l.csv", text), options));
  EXPECT_EQ(SchemaToString(reader->schema()), "name: string\nv: string\n");
  EXPECT_EQ(ReadAll(*reader), "{\"name\":\"café \\\"x\\\"\",\"v\":null}\n{\"name\":\"NA\",\"v\":\"1\"}\n");

  ASSERT_OK_AND_ASSIGN(auto bom, CsvFileReader::Open(File("b.csv", "\xEF\xBB\xBFx,y\n1,2\n"), Options()));
  EXPECT_EQ(SchemaToString(bom->schema()), "x: int64\ny: int64\n");
  EXPECT_FALSE(CsvFileReader::Open(File("e.csv", "a\n"),
                                   [] {
                                     CsvReadOptions o;
                                     o.encoding = "ebcdic";
                                     return o;
                                   }())
                   .ok());
}

TEST(CsvFileReaderTest, ChunksAgreeWithTheScanWhateverTheLayout) {
  std::string text = "id,text\n";
  for (int i = 0; i < 300; ++i) {
    text += std::to_string(i) + ",";
    if (i % 7 == 0)
      text += "\"quoted, with\r\nline breaks \"\"and quotes\"\"\"";
    else if (i % 11 == 0)
      text += "\"\"";
    else
      text += "plain" + std::to_string(i);
    text += i % 3 == 0 ? "\r\n" : i % 3 == 1 ? "\n" : "\r";
    if (i % 50 == 0) text += "\n";  // a blank line
  }
  CsvReadOptions options = Options();
  options.limits.chunk_rows = 17;
  ASSERT_OK_AND_ASSIGN(auto reader, CsvFileReader::Open(File("c.csv", text), options));
  EXPECT_EQ(reader->num_rows(), 300);
  EXPECT_GT(reader->num_chunks(), 10);
  const std::string ids = ReadAll(*reader, {0});
  EXPECT_EQ(std::count(ids.begin(), ids.end(), '\n'), 300);
  EXPECT_NE(ids.find("{\"id\":299}"), std::string::npos);
  const std::string all = ReadAll(*reader);
  EXPECT_NE(all.find("{\"id\":7,\"text\":\"quoted, with\\r\\nline breaks \\\"and quotes\\\"\"}"),
            std::string::npos);
  EXPECT_NE(all.find("{\"id\":11,\"text\":\"\"}"), std::string::npos);
}

TEST(CsvFileReaderTest, AnUnterminatedQuoteDoesNotSwallowTheFile) {
  std::string text = "a,b\n1,\"oops\n";
  // Every later quote run is even: the open quote never closes, and each
  // later line is an empty quoted string once the bad record is cut.
  for (int i = 2; i < 200; ++i) text += std::to_string(i) + ",\"\"\n";
  ASSERT_OK_AND_ASSIGN(auto reader, CsvFileReader::Open(File("u.csv", text), Options()));
  EXPECT_EQ(reader->num_rows(), 199);
  const std::string rows = ReadAll(*reader);
  EXPECT_NE(rows.find("unterminated quote"), std::string::npos);
  EXPECT_NE(rows.find("{\"a\":199,\"b\":\"\",\"_rescued_data\":null}"), std::string::npos)
      << rows.substr(0, 400);
}

}  // namespace
}  // namespace floe::csv

namespace floe::csv {
namespace {

// The record ends a scan reports, as "end:row" pairs.
std::string ScanRecords(const std::vector<std::string_view>& blocks, bool header) {
  formats::TextChunkLimits limits;
  limits.chunk_rows = 1;
  formats::TextChunker chunker(limits, 0, 1);
  CsvRecordScanner scanner(CsvDialect{}, &chunker, 0, 1, header);
  std::string all;
  for (std::string_view block : blocks) all.append(block);
  for (std::string_view block : blocks) scanner.Scan(block);
  for (int64_t again = scanner.Finish(); again >= 0; again = scanner.Finish()) {
    scanner.Scan(std::string_view(all).substr(static_cast<size_t>(again)));
  }
  std::string out;
  for (const formats::TextChunk& chunk : chunker.Finish()) {
    out += std::to_string(chunk.offset) + "+" + std::to_string(chunk.length) + "@" +
           std::to_string(chunk.first_line) + " ";
  }
  return out;
}

TEST(CsvRecordScannerTest, BlockBoundariesDoNotMoveRecords) {
  const std::string text = "h1,h2\r\nab,cd\n\"q,\"\"x\"\"\r\ny\",z\r\n,\n\r\nlast,\"open\nmore,1\n";
  for (bool header : {false, true}) {
    const std::string whole = ScanRecords({text}, header);
    for (size_t split = 0; split <= text.size(); ++split) {
      const std::string_view view(text);
      EXPECT_EQ(ScanRecords({view.substr(0, split), view.substr(split)}, header), whole)
          << "split at " << split;
    }
  }
}

}  // namespace
}  // namespace floe::csv
