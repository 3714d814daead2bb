// Fuzzes what a landing zone hands floe as text besides file contents:
// ordering cells (digits, timestamp_text, hex, and two-column orderings),
// operation codes, Hive key=value folder values and paths matched against a
// table_from_path template. Input: a selector byte, then '\n'-separated
// fields. Properties beyond "no crash, no exception": a value that parses
// compares consistently with itself, and a digits value round-trips leading
// zeros away (the same number with and without them).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "formats/chunked_reader.h"
#include "fuzz_checks.h"
#include "ingest/changes/operation_codes.h"
#include "ingest/discovery/table_path.h"
#include "ingest/format/partition_columns.h"
#include "ingest/merge/order_value.h"

using namespace floe;
using namespace floe::ingest;

namespace {

std::vector<std::string> Fields(std::string_view text) {
  std::vector<std::string> fields;
  size_t start = 0;
  while (start <= text.size() && fields.size() < 8) {
    const size_t end = std::min(text.find('\n', start), text.size());
    fields.emplace_back(text.substr(start, end - start));
    start = end + 1;
  }
  return fields;
}

Column Strings(const std::vector<std::string>& values) {
  Column column(String());
  for (const std::string& value : values) column.AppendBytes(value);
  return column;
}

class OneChunk final : public formats::ChunkedReader {
 public:
  const Schema& schema() const override { return schema_; }
  int num_chunks() const override { return 1; }
  int64_t chunk_rows(int) const override { return 2; }
  int64_t chunk_bytes(int) const override { return 0; }
  Result<RecordBatch> ReadChunk(int chunk, const std::vector<int>&) override {
    if (chunk != 0) return Status::InvalidArgument("chunk");
    RecordBatch batch;
    batch.num_rows = 2;
    return batch;
  }

 private:
  Schema schema_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t selector = data[0];
  const std::vector<std::string> fields =
      Fields(std::string_view(reinterpret_cast<const char*>(data) + 1, size - 1));
  const Column cells = Strings(fields);
  switch (selector % 4) {
    case 0: {  // one text ordering column of each kind
      for (OrderingKind kind :
           {OrderingKind::kDigits, OrderingKind::kTimestampText, OrderingKind::kPaddedHex}) {
        for (int64_t row = 0; row < cells.length; ++row) {
          auto value = OrderValueAt(cells, row, kind, "c");
          auto again = OrderValueAt(cells, row, kind, "c");
          CHECK_PROPERTY(value.ok() == again.ok());
          if (!value.ok()) continue;
          CHECK_PROPERTY(*value == *again);
          if (kind == OrderingKind::kDigits) {
            const Column padded = Strings({"000" + fields[static_cast<size_t>(row)]});
            auto with_zeros = OrderValueAt(padded, 0, kind, "c");
            CHECK_PROPERTY(with_zeros.ok() && *with_zeros == *value);
          }
        }
      }
      break;
    }
    case 1: {  // two timestamp_text columns, missing values oldest
      if (cells.length < 2) break;
      OrderingSpec spec{{{"a", OrderingKind::kTimestampText}, {"b", OrderingKind::kTimestampText}},
                        (selector & 4) != 0};
      const Column second = Strings({fields[1], fields[0]});
      for (int64_t row = 0; row < 2; ++row) {
        auto value = OrderingValueAt(spec, {&cells, &second}, row);
        (void)value;
      }
      break;
    }
    case 2: {  // operation codes of a string column
      MergeConfig merge;
      merge.insert_values = {std::string("I"), std::string("c")};
      merge.update_values = {std::string("U")};
      merge.delete_values = {std::string("D")};
      merge.ignore_values = {int64_t{3}};
      const OperationMap map(merge);
      std::vector<BadRow> bad;
      auto actions = ClassifyOperations(cells, "op", 0, map, &bad);
      CHECK_PROPERTY(actions.size() == static_cast<size_t>(cells.length));
      size_t unknown = 0;
      for (OperationAction action : actions) unknown += action == OperationAction::kUnknown ? 1 : 0;
      CHECK_PROPERTY(unknown == bad.size());
      break;
    }
    case 3: {  // Hive folder values and template paths
      std::vector<std::pair<std::string, std::string>> values;
      for (size_t i = 0; i + 1 < fields.size(); i += 2) values.emplace_back(fields[i], fields[i + 1]);
      const std::map<std::string, std::string> types =
          (selector & 4) ? std::map<std::string, std::string>{{fields[0], "date"}}
                         : std::map<std::string, std::string>{};
      auto reader = WithPartitionColumns(std::make_unique<OneChunk>(), "unit", values, types);
      if (reader.ok()) {
        auto chunk = (*reader)->ReadChunk(0, {});
        CHECK_PROPERTY(chunk.ok());
        for (const Column& column : chunk->columns) CHECK_PROPERTY(column.Validate().empty());
      }
      auto path_template = TablePathTemplate::Parse(fields[0]);
      if (path_template.ok()) {
        for (size_t i = 1; i < fields.size(); ++i) {
          auto match = path_template->MatchPath(fields[i]);
          if (match) CHECK_PROPERTY(match->table_folder_length <= fields[i].size() && !match->table.empty());
        }
      }
      break;
    }
  }
  return 0;
}
