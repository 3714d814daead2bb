// Column lower/upper bounds for data-file metrics: conversion of Parquet
// statistics to Iceberg single values, and Iceberg's bound truncation.
//
// Contract: truncated lower bounds are prefixes (<= every value); truncated
// upper bounds are >= every value: the prefix with its last incrementable
// unit incremented (UTF-8 code point, skipping surrogates and stopping at
// U+10FFFF; byte below 0xFF) and everything after it dropped, or nullopt
// when nothing can be incremented (then no upper bound may be written).
// Values that already fit are returned unchanged.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/status.h"
#include "iceberg/spec/types.h"

namespace floe::iceberg {

// Iceberg's default metrics mode truncate(16).
inline constexpr int32_t kDefaultBoundLength = 16;

std::string TruncateStringLowerBound(std::string_view utf8, int32_t code_points);
std::optional<std::string> TruncateStringUpperBound(std::string_view utf8, int32_t code_points);
std::string TruncateBinaryLowerBound(std::string_view bytes, int32_t length);
std::optional<std::string> TruncateBinaryUpperBound(std::string_view bytes, int32_t length);

// Converts one Parquet statistics value (PLAIN encoding, raw bytes for
// BYTE_ARRAY, as floe's Parquet writer reports it) of a column of Iceberg
// `type` into the single-value serialization, untruncated: numbers stay
// little-endian, INT32/INT64 decimals become minimal big-endian two's
// complement, FLBA decimals lose redundant sign bytes. A value whose length
// does not fit the type is Corruption.
Result<std::string> ParquetStatisticToSingleValue(std::string_view plain, const Type& type);

}  // namespace floe::iceberg
