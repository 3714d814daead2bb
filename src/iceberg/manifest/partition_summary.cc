#include "iceberg/manifest/partition_summary.h"

#include <cmath>

#include "iceberg/spec/single_value.h"

namespace floe::iceberg {

namespace {

template <typename T>
int ThreeWay(const T& a, const T& b) {
  return a < b ? -1 : (b < a ? 1 : 0);
}

}  // namespace

int CompareLiterals(const Literal& a, const Literal& b) {
  switch (a.kind) {
    case Literal::Kind::kFloat:
    case Literal::Kind::kDouble: return ThreeWay(a.double_value, b.double_value);
    case Literal::Kind::kDecimal: return ThreeWay(a.unscaled, b.unscaled);
    case Literal::Kind::kString:
    case Literal::Kind::kUuid:
    case Literal::Kind::kFixed:
    case Literal::Kind::kBinary: {
      // std::string compares as char (signed here); Iceberg orders unsigned bytes.
      const size_t n = std::min(a.bytes.size(), b.bytes.size());
      for (size_t i = 0; i < n; ++i) {
        const auto x = static_cast<uint8_t>(a.bytes[i]);
        const auto y = static_cast<uint8_t>(b.bytes[i]);
        if (x != y) return x < y ? -1 : 1;
      }
      return ThreeWay(a.bytes.size(), b.bytes.size());
    }
    default: return ThreeWay(a.int_value, b.int_value);
  }
}

PartitionSummaryBuilder::PartitionSummaryBuilder(Type partition_type)
    : partition_type_(std::move(partition_type)), fields_(partition_type_.fields.size()) {}

Status PartitionSummaryBuilder::Add(const std::vector<Literal>& partition) {
  if (partition.size() != fields_.size()) {
    return Status::InvalidArgument("partition tuple has " + std::to_string(partition.size()) +
                                   " values, the spec has " + std::to_string(fields_.size()) + " fields");
  }
  for (size_t i = 0; i < fields_.size(); ++i) {
    const Literal& value = partition[i];
    FieldState& state = fields_[i];
    if (value.is_null()) {
      state.contains_null = true;
      continue;
    }
    if (!LiteralMatchesType(value, partition_type_.fields[i].type)) {
      return Status::InvalidArgument("partition field '" + partition_type_.fields[i].name + "': value " +
                                     value.ToString() + " does not match type " +
                                     partition_type_.fields[i].type.ToString());
    }
    if ((value.kind == Literal::Kind::kFloat || value.kind == Literal::Kind::kDouble) &&
        std::isnan(value.double_value)) {
      state.contains_nan = true;
      continue;
    }
    if (!state.lower || CompareLiterals(value, *state.lower) < 0) state.lower = value;
    if (!state.upper || CompareLiterals(value, *state.upper) > 0) state.upper = value;
  }
  return Status::OK();
}

Result<std::vector<PartitionFieldSummary>> PartitionSummaryBuilder::Finish() const {
  std::vector<PartitionFieldSummary> summaries;
  for (size_t i = 0; i < fields_.size(); ++i) {
    const FieldState& state = fields_[i];
    PartitionFieldSummary summary;
    summary.contains_null = state.contains_null;
    summary.contains_nan = state.contains_nan;
    const Type& type = partition_type_.fields[i].type;
    if (state.lower) {
      FLOE_ASSIGN_OR_RETURN(summary.lower_bound, SerializeSingleValue(*state.lower, type));
      FLOE_ASSIGN_OR_RETURN(summary.upper_bound, SerializeSingleValue(*state.upper, type));
    }
    summaries.push_back(std::move(summary));
  }
  return summaries;
}

}  // namespace floe::iceberg
