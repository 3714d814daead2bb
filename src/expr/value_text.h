// Text <-> value conversions of the expression language: what CAST from and
// to string does, and how DATE/TIMESTAMP literals are read.
//
// Contract: parsers take the whole text (surrounding ASCII spaces allowed)
// and return nullopt when it is not a value of the type; they never read
// past the text. Formatting follows DuckDB's casts to VARCHAR (documented in
// docs/expressions.md): doubles shortest round-trip ("0.1", "1e+20", "nan"),
// timestamps "YYYY-MM-DD HH:MM:SS[.ffffff]" with trailing fraction zeros
// trimmed and "+00" for timestamptz. Pure functions, thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace floe::expr {

__extension__ typedef __int128 Int128;

std::string_view TrimSpaces(std::string_view text);

// An integer; also decimal or exponent text rounded half away from zero
// ("12.5" -> 13, "1e2" -> 100), as DuckDB's casts read it.
std::optional<int64_t> ParseInteger(std::string_view text);
std::optional<double> ParseDouble(std::string_view text);
// Decimal text ("-12.345", "1e3" is refused) rounded half away from zero to
// `scale` digits; nullopt when not a number or when it needs more than
// `precision` digits.
std::optional<Int128> ParseDecimal(std::string_view text, int32_t precision, int32_t scale);
std::optional<bool> ParseBoolean(std::string_view text);
// "YYYY-MM-DD" -> days since the epoch.
std::optional<int32_t> ParseDate(std::string_view text);
// "HH:MM[:SS[.fraction]]" -> microseconds since midnight.
std::optional<int64_t> ParseTime(std::string_view text);
// "YYYY-MM-DD[( |T)HH:MM[:SS[.fraction]]][Z|UTC|(+|-)HH[[:]MM]]" ->
// microseconds since the epoch. With `apply_offset` (timestamptz) an offset
// is applied and the result is UTC; without it (timestamp) the offset is
// read and dropped, the local time kept, as DuckDB does. Fraction digits
// past microseconds are truncated.
std::optional<int64_t> ParseTimestamp(std::string_view text, bool apply_offset = true);
// 8-4-4-4-12 hex (case-insensitive, braces or no dashes allowed) -> 16 bytes.
std::optional<std::string> ParseUuidText(std::string_view text);

std::string FormatDouble(double value);
std::string FormatFloat(float value);
std::string FormatDecimalText(Int128 unscaled, int32_t scale);
std::string FormatDateText(int32_t days);
std::string FormatTimeText(int64_t micros);
std::string FormatTimestampText(int64_t micros, bool utc);
std::string FormatUuidText(const uint8_t* bytes16);
// Bytes as DuckDB prints a BLOB: printable ASCII as is, others as \xHH.
std::string FormatBinaryText(std::string_view bytes);

// 10^n for n in 0..38.
Int128 Pow10(int32_t n);

}  // namespace floe::expr
