// Value syntax of the pipeline config: durations, sizes, and how a TOML
// value is named in an error message.
#include "ingest/config/config_section.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <sstream>

#include "common/strings.h"
#include "ingest/config/config.h"

namespace floe::ingest {
namespace config_internal {
namespace {

// Parses "<decimal number><optional space><unit>" against a unit table; the
// number may have a fraction. Returns nullopt for anything malformed.
std::optional<int64_t> ParseScaled(std::string_view text,
                                   const std::vector<std::pair<std::string, int64_t>>& units,
                                   int64_t no_unit_scale, int64_t max_value) {
  size_t i = 0;
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  size_t start = i;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
  size_t int_end = i;
  if (i < text.size() && text[i] == '.') {
    ++i;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
  }
  if (int_end == start || i == int_end + 1) return std::nullopt;  // no digits, or "5."
  std::string number(text.substr(start, i - start));
  if (number.size() > 30) return std::nullopt;
  while (i < text.size() && text[i] == ' ') ++i;
  std::string unit(text.substr(i));
  while (!unit.empty() && std::isspace(static_cast<unsigned char>(unit.back()))) unit.pop_back();
  int64_t scale = no_unit_scale;
  if (!unit.empty()) {
    const std::string lower = AsciiLower(unit);
    bool found = false;
    for (const auto& [name, unit_scale] : units) {
      if (name == lower) {
        scale = unit_scale;
        found = true;
        break;
      }
    }
    if (!found) return std::nullopt;
  }
  long double value = std::strtold(number.c_str(), nullptr) * static_cast<long double>(scale);
  if (!std::isfinite(value) || value > static_cast<long double>(max_value)) return std::nullopt;
  return static_cast<int64_t>(std::llround(value));
}

const std::vector<std::pair<std::string, int64_t>>& DurationUnits() {
  static const std::vector<std::pair<std::string, int64_t>> units = {
      {"ms", 1}, {"s", 1000}, {"m", 60'000}, {"h", 3'600'000}, {"d", 86'400'000}};
  return units;
}

const std::vector<std::pair<std::string, int64_t>>& SizeUnits() {
  static const std::vector<std::pair<std::string, int64_t>> units = {
      {"b", 1},
      {"kb", 1000},
      {"mb", 1000 * 1000},
      {"gb", int64_t{1000} * 1000 * 1000},
      {"tb", int64_t{1000} * 1000 * 1000 * 1000},
      {"kib", int64_t{1} << 10},
      {"mib", int64_t{1} << 20},
      {"gib", int64_t{1} << 30},
      {"tib", int64_t{1} << 40}};
  return units;
}

}  // namespace

std::optional<int64_t> DurationMsFromText(std::string_view text) {
  return ParseScaled(text, DurationUnits(), 1000, kMaxDurationMs);
}

std::optional<int64_t> SizeBytesFromText(std::string_view text) {
  return ParseScaled(text, SizeUnits(), 1, kMaxSizeBytes);
}

// What a TOML value is, for "expected X, got Y" messages.
std::string DescribeTomlValue(const toml::node& node) {
  if (const auto* s = node.as_string()) return "\"" + s->get() + "\"";
  if (node.is_table()) return "a table";
  if (node.is_array()) return "an array";
  if (const auto* i = node.as_integer()) return std::to_string(i->get());
  if (const auto* b = node.as_boolean()) return b->get() ? "true" : "false";
  std::ostringstream out;
  if (const auto* f = node.as_floating_point()) {
    out << f->get();
  } else {
    out << "a " << node.type() << " value";
  }
  return out.str();
}

Result<const toml::array*> ArrayOfTables(const ParseContext& context, const toml::node& node,
                                         const std::string& key, const std::string& fields) {
  const auto* array = node.as_array();
  if (array && array->is_array_of_tables()) return array;
  std::string message = context.display_path + ": " + key + ": expected [[" + key + "]] entries (" + fields +
                        "), got " + DescribeTomlValue(node);
  if (node.source().begin.line > 0) message += " (line " + std::to_string(node.source().begin.line) + ")";
  return Status::InvalidArgument(message);
}

}  // namespace config_internal

Result<int64_t> ParseDurationMs(const std::string& text) {
  auto ms = config_internal::DurationMsFromText(text);
  if (!ms) {
    return Status::InvalidArgument("expected a duration like \"60s\", \"500ms\" or \"30d\", got \"" + text +
                                   "\"");
  }
  return *ms;
}

Result<int64_t> ParseSizeBytes(const std::string& text) {
  auto bytes = config_internal::SizeBytesFromText(text);
  if (!bytes)
    return Status::InvalidArgument("expected a size like \"128MiB\" or \"1GiB\", got \"" + text + "\"");
  return *bytes;
}

}  // namespace floe::ingest
