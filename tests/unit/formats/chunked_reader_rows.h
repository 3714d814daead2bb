// Test helper: every row a ChunkedReader yields, as JSON lines, with the
// chunks read back to front (so readers are exercised out of order) and
// every batch checked against the reader's chunk_rows and Column::Validate.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "columnar/json_format.h"
#include "formats/chunked_reader.h"

namespace floe::testing {

inline std::string ReadAllRows(formats::ChunkedReader& reader, const std::vector<int>& columns = {}) {
  std::vector<std::string> parts(static_cast<size_t>(reader.num_chunks()));
  for (int c = reader.num_chunks() - 1; c >= 0; --c) {
    auto batch = reader.ReadChunk(c, columns);
    EXPECT_TRUE(batch.ok()) << batch.status().ToString();
    if (!batch.ok()) return "";
    EXPECT_EQ(batch->num_rows, reader.chunk_rows(c));
    for (const Column& column : batch->columns) EXPECT_EQ(column.Validate(), "");
    for (int64_t r = 0; r < batch->num_rows; ++r) {
      AppendJsonRow(*batch, r, &parts[static_cast<size_t>(c)]);
      parts[static_cast<size_t>(c)].push_back('\n');
    }
  }
  std::string out;
  for (const std::string& part : parts) out += part;
  return out;
}

}  // namespace floe::testing
