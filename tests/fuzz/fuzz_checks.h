// What the fuzz targets share: a property check that aborts (a finding the
// fuzzer reports and minimises), and a column's values as text for
// comparing two reads of the same data.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>

#include "columnar/json_format.h"

// Aborts naming the property that failed.
#define CHECK_PROPERTY(condition)                                                    \
  do {                                                                               \
    if (!(condition)) {                                                              \
      std::fprintf(stderr, "property failed: %s (line %d)\n", #condition, __LINE__); \
      std::abort();                                                                  \
    }                                                                                \
  } while (0)

namespace floe::fuzzing {

// One line of JSON per value.
inline std::string ColumnText(const Column& column) {
  std::string text;
  for (int64_t r = 0; r < column.length; ++r) {
    AppendJsonValue(column, r, &text);
    text.push_back('\n');
  }
  return text;
}

}  // namespace floe::fuzzing
