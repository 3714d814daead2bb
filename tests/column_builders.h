// Test helpers: columns built from lists of optional values (nullopt is null).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "columnar/column.h"

namespace floe::testing {

// A fixed-width column of `type` whose values are stored as T.
template <typename T>
Column MakeColumn(DataType type, const std::vector<std::optional<T>>& values) {
  Column c = MakeEmptyColumn(type);
  for (const auto& v : values) {
    if (v) {
      c.AppendValue<T>(*v);
    } else {
      c.AppendNull();
    }
  }
  return c;
}

// A string or binary column.
inline Column MakeStrings(DataType type, const std::vector<std::optional<std::string>>& values) {
  Column c = MakeEmptyColumn(type);
  for (const auto& v : values) {
    if (v) {
      c.AppendBytes(*v);
    } else {
      c.AppendNull();
    }
  }
  return c;
}

}  // namespace floe::testing
