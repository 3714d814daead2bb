// Iceberg sort orders: how a writer orders rows within data files.
//
// Contract: order id 0 is reserved for the unsorted order (no fields);
// sorted orders have ids >= 1. Fields name a source column, a transform, a
// direction and a null order, serialized as in Appendix C.
#pragma once

#include <cstdint>
#include <vector>

#include "common/status.h"
#include "iceberg/spec/json_util.h"
#include "iceberg/spec/schema.h"
#include "iceberg/spec/transform.h"

namespace floe::iceberg {

enum class SortDirection : uint8_t { kAsc, kDesc };
enum class NullOrder : uint8_t { kNullsFirst, kNullsLast };

struct SortField {
  Transform transform;
  int32_t source_id = 0;
  SortDirection direction = SortDirection::kAsc;
  NullOrder null_order = NullOrder::kNullsFirst;

  bool operator==(const SortField& other) const = default;
};

struct SortOrder {
  int32_t order_id = 0;
  std::vector<SortField> fields;

  static SortOrder Unsorted() { return SortOrder{}; }
  bool is_unsorted() const { return fields.empty(); }
  // Order 0 has no fields and sorted orders are not 0; sources exist and accept their transforms.
  Status Validate(const Schema& schema) const;

  bool operator==(const SortOrder& other) const = default;
};

OrderedJson SortOrderToJson(const SortOrder& order);
Result<SortOrder> SortOrderFromJson(const Json& json);

}  // namespace floe::iceberg
