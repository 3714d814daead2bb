// Min/max statistics of Parquet leaf values, in each type's defined sort
// order (parquet-format: signed INT32/INT64 unless annotated unsigned; floats
// with NaN excluded and -0.0 as the minimum / +0.0 as the maximum zero;
// BYTE_ARRAY/FLBA unsigned lexicographic; FLBA decimals as signed big-endian
// two's complement; false < true; no order for INT96 and INTERVAL).
//
// Contract: min/max are the PLAIN encodings of the extreme values (raw bytes
// for BYTE_ARRAY), untruncated. When no value counts (all null, all NaN,
// or an order-less type) min/max are absent.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "formats/parquet/writer/leaf_shredder.h"
#include "formats/parquet/writer/schema_builder.h"

namespace floe::parquet {

struct ValueStats {
  std::optional<std::string> min;
  std::optional<std::string> max;
  int64_t nan_count = 0;
};

// Statistics of the stored values [begin, end) of `values`.
ValueStats ComputeValueStats(const WriteLeaf& leaf, const LeafValues& values, int64_t begin, int64_t end);

// Folds `part` into `total` (both in the order of `order`).
void MergeValueStats(StatsOrder order, const ValueStats& part, ValueStats* total);

// True when PLAIN-encoded a sorts strictly before b in `order`.
bool EncodedLess(StatsOrder order, std::string_view a, std::string_view b);

}  // namespace floe::parquet
