#include "iceberg/scan/pruning.h"

#include <optional>

#include "iceberg/spec/single_value.h"

namespace floe::iceberg {
namespace {

std::optional<PredicateOp> ProjectOp(const Transform& transform, PredicateOp op) {
  if (op == PredicateOp::kIsNull || op == PredicateOp::kNotNull) return op;
  switch (transform.kind()) {
    case Transform::Kind::kIdentity: return op;
    case Transform::Kind::kBucket:
      if (op == PredicateOp::kEq) return op;
      return std::nullopt;
    case Transform::Kind::kTruncate:
    case Transform::Kind::kYear:
    case Transform::Kind::kMonth:
    case Transform::Kind::kDay:
    case Transform::Kind::kHour:
      switch (op) {
        case PredicateOp::kEq: return PredicateOp::kEq;
        case PredicateOp::kLt:
        case PredicateOp::kLtEq: return PredicateOp::kLtEq;
        case PredicateOp::kGt:
        case PredicateOp::kGtEq: return PredicateOp::kGtEq;
        default: return std::nullopt;
      }
    default: return std::nullopt;
  }
}

// A bound decoded as `type`; a narrower encoding (int bound of a column
// promoted to long, float to double) is widened. nullopt when undecodable.
std::optional<Literal> DecodeBound(const std::string& bytes, const Type& type) {
  auto value = DeserializeSingleValue(bytes, type);
  if (value.ok()) return *value;
  if (type.kind == TypeKind::kLong && bytes.size() == 4) {
    auto narrow = DeserializeSingleValue(bytes, PrimitiveType(TypeKind::kInt));
    if (narrow.ok()) return Literal::Long(narrow->int_value);
  }
  if (type.kind == TypeKind::kDouble && bytes.size() == 4) {
    auto narrow = DeserializeSingleValue(bytes, PrimitiveType(TypeKind::kFloat));
    if (narrow.ok()) return Literal::Double(narrow->double_value);
  }
  return std::nullopt;
}

// Whether a value range [lower, upper] (either may be unknown) may hold a
// value satisfying `op value`.
bool RangeMayMatch(PredicateOp op, const std::optional<Literal>& lower, const std::optional<Literal>& upper,
                   const Literal& value) {
  auto cmp = [&](const std::optional<Literal>& bound) -> std::optional<int> {
    if (!bound) return std::nullopt;
    return CompareValues(*bound, value);
  };
  const std::optional<int> lo = cmp(lower), hi = cmp(upper);
  switch (op) {
    case PredicateOp::kEq: return !((lo && *lo > 0) || (hi && *hi < 0));
    case PredicateOp::kLt: return !(lo && *lo >= 0);
    case PredicateOp::kLtEq: return !(lo && *lo > 0);
    case PredicateOp::kGt: return !(hi && *hi <= 0);
    case PredicateOp::kGtEq: return !(hi && *hi < 0);
    default: return true;
  }
}

}  // namespace

std::vector<PartitionPredicate> ProjectFilterToPartition(const std::vector<BoundPredicate>& filter,
                                                         const PartitionSpec& spec, const Schema& schema) {
  std::vector<PartitionPredicate> out;
  for (const BoundPredicate& predicate : filter) {
    for (size_t i = 0; i < spec.fields.size(); ++i) {
      const PartitionField& field = spec.fields[i];
      if (field.source_id != predicate.field_id) continue;
      const NestedField* source = schema.FindFieldById(field.source_id);
      if (source == nullptr || !field.transform.CanApply(source->type)) continue;
      const std::optional<PredicateOp> op = ProjectOp(field.transform, predicate.op);
      if (!op) continue;
      auto result_type = field.transform.ResultType(source->type);
      if (!result_type.ok()) continue;
      Literal value = Literal::Null();
      if (!predicate.value.is_null()) {
        auto transformed = field.transform.Apply(predicate.value);
        if (!transformed.ok()) continue;
        value = std::move(*transformed);
      }
      out.push_back(PartitionPredicate{i, std::move(*result_type), *op, std::move(value)});
    }
  }
  return out;
}

bool PartitionMayMatch(const std::vector<PartitionPredicate>& predicates,
                       const std::vector<Literal>& partition) {
  for (const PartitionPredicate& predicate : predicates) {
    if (predicate.field_index >= partition.size()) continue;
    const Literal& actual = partition[predicate.field_index];
    if (!actual.is_null() && !predicate.value.is_null() && !CompareValues(actual, predicate.value)) {
      continue;  // incomparable (e.g. a partition value of an older type): cannot tell
    }
    if (!EvaluateOn(predicate.op, actual, predicate.value)) return false;
  }
  return true;
}

bool ManifestMayMatch(const std::vector<PartitionPredicate>& predicates, const ManifestFile& manifest) {
  for (const PartitionPredicate& predicate : predicates) {
    if (predicate.field_index >= manifest.partitions.size()) continue;
    const PartitionFieldSummary& summary = manifest.partitions[predicate.field_index];
    if (predicate.op == PredicateOp::kIsNull) {
      if (!summary.contains_null) return false;
      continue;
    }
    const bool no_bounds = !summary.lower_bound && !summary.upper_bound;
    const bool only_nulls = no_bounds && summary.contains_nan.has_value() && !*summary.contains_nan;
    if (predicate.op == PredicateOp::kNotNull) {
      if (only_nulls) return false;
      continue;
    }
    if (only_nulls && predicate.op != PredicateOp::kNotEq) return false;
    std::optional<Literal> lower, upper;
    if (summary.lower_bound) lower = DecodeBound(*summary.lower_bound, predicate.result_type);
    if (summary.upper_bound) upper = DecodeBound(*summary.upper_bound, predicate.result_type);
    if (!RangeMayMatch(predicate.op, lower, upper, predicate.value)) return false;
  }
  return true;
}

bool MetricsMayMatch(const std::vector<BoundPredicate>& filter, const DataFile& file) {
  for (const BoundPredicate& predicate : filter) {
    const auto nulls = file.null_value_counts.find(predicate.field_id);
    const auto values = file.value_counts.find(predicate.field_id);
    const bool all_null = nulls != file.null_value_counts.end() && values != file.value_counts.end() &&
                          nulls->second == values->second;
    if (predicate.op == PredicateOp::kIsNull) {
      if (nulls != file.null_value_counts.end() && nulls->second == 0) return false;
      continue;
    }
    if (predicate.op == PredicateOp::kNotNull || predicate.op == PredicateOp::kNotEq) {
      if (all_null) return false;
      continue;
    }
    if (all_null) return false;
    std::optional<Literal> lower, upper;
    if (auto it = file.lower_bounds.find(predicate.field_id); it != file.lower_bounds.end()) {
      lower = DecodeBound(it->second, predicate.type);
    }
    if (auto it = file.upper_bounds.find(predicate.field_id); it != file.upper_bounds.end()) {
      upper = DecodeBound(it->second, predicate.type);
    }
    if (!RangeMayMatch(predicate.op, lower, upper, predicate.value)) return false;
  }
  return true;
}

}  // namespace floe::iceberg
