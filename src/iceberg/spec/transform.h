// Iceberg partition and sort transforms (table spec "Partition Transforms").
//
// Contract: a Transform is parsed from and printed to its JSON spelling
// ("identity", "bucket[16]", "truncate[10]", "year", "month", "day", "hour",
// "void"). Transforms this code does not know are kept as kUnknown with their
// name so metadata still round-trips; they apply to nothing. Apply() maps a
// source value to the partition value (null in, null out) with floor
// semantics for negative values, as Java does.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/status.h"
#include "iceberg/spec/literal.h"
#include "iceberg/spec/types.h"

namespace floe::iceberg {

class Transform {
 public:
  enum class Kind : uint8_t { kIdentity, kBucket, kTruncate, kYear, kMonth, kDay, kHour, kVoid, kUnknown };

  Transform() = default;
  static Transform Identity() { return Transform(Kind::kIdentity, 0); }
  static Transform Bucket(int32_t buckets) { return Transform(Kind::kBucket, buckets); }
  static Transform Truncate(int32_t width) { return Transform(Kind::kTruncate, width); }
  static Transform Year() { return Transform(Kind::kYear, 0); }
  static Transform Month() { return Transform(Kind::kMonth, 0); }
  static Transform Day() { return Transform(Kind::kDay, 0); }
  static Transform Hour() { return Transform(Kind::kHour, 0); }
  static Transform Void() { return Transform(Kind::kVoid, 0); }

  // Unknown names parse to kUnknown; malformed known ones ("bucket[0]",
  // "bucket[x]") are Corruption.
  static Result<Transform> Parse(std::string_view text);
  std::string ToString() const;

  Kind kind() const { return kind_; }
  // N of bucket[N], W of truncate[W]; 0 otherwise.
  int32_t parameter() const { return parameter_; }

  bool CanApply(const Type& source) const;
  // The partition value type: bucket/year/month/hour -> int, day -> date,
  // identity/truncate/void -> the source type.
  Result<Type> ResultType(const Type& source) const;
  // Transforms one value; the literal's kind must be one CanApply accepts.
  Result<Literal> Apply(const Literal& value) const;
  // The value as Java writes it in partition paths before escaping:
  // day "2017-11-16", hour "2017-11-16-10", month "2017-11", year "2017",
  // ints as decimal text, null as "null". `result` is an Apply() output.
  std::string ToHumanString(const Literal& result) const;

  bool operator==(const Transform& other) const = default;

 private:
  Transform(Kind kind, int32_t parameter) : kind_(kind), parameter_(parameter) {}

  Kind kind_ = Kind::kIdentity;
  int32_t parameter_ = 0;
  std::string unknown_name_;
};

// Human string of a plain value (what identity partitions show): dates
// "2017-11-16", timestamps "2017-11-16T22:31:08", timestamptz with "Z",
// binary/fixed base64, decimals as Java's BigDecimal.toString.
std::string LiteralToHumanString(const Literal& value);

// java.net.URLEncoder.encode(text, UTF-8): keeps [A-Za-z0-9.*_-], space
// becomes '+', every other byte %XX.
std::string EscapePathComponent(std::string_view text);

// The first `code_points` UTF-8 code points of `text`.
std::string TruncateUtf8(std::string_view text, int32_t code_points);

}  // namespace floe::iceberg
