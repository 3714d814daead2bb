// Internal to the pipeline config parser: the value syntax (durations,
// sizes) and SectionReader, which reads the keys of one TOML section with
// type checks, ${VAR} expansion and error messages that name the file and
// key path, and remembers which keys were consumed so that whatever is left
// is reported as unknown. Not for use outside src/ingest/config.
#pragma once

#include <toml++/toml.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace floe::ingest::config_internal {

constexpr int64_t kMaxDurationMs = int64_t{100} * 365 * 24 * 3600 * 1000;  // 100 years
constexpr int64_t kMaxSizeBytes = int64_t{1} << 50;                        // 1 PiB

// "10s" / "1.5GiB" style text (see ParseDurationMs / ParseSizeBytes in
// config.h); nullopt when malformed, negative or out of range.
std::optional<int64_t> DurationMsFromText(std::string_view text);
std::optional<int64_t> SizeBytesFromText(std::string_view text);

// What a TOML value is, for "expected X, got Y" messages: "\"soon\"", 5, true, "an array".
std::string DescribeTomlValue(const toml::node& node);

// Shared state of one parse: where errors point and how paths resolve.
struct ParseContext {
  std::string display_path;        // names the file in errors
  std::filesystem::path base_dir;  // anchors relative local paths
};

// `node` as an array of tables ([[key]] entries), or InvalidArgument naming
// the file, the key, what each entry holds (`fields`: "name, expr, action")
// and what the config gave instead, with its line.
Result<const toml::array*> ArrayOfTables(const ParseContext& context, const toml::node& node,
                                         const std::string& key, const std::string& fields);

// Reads the keys of one TOML table and remembers which were consumed.
class SectionReader {
 public:
  // `label` is how a key path is written in errors: "[trigger]" or "" for the top level.
  SectionReader(const ParseContext& context, std::string label, const toml::table* table)
      : context_(context), label_(std::move(label)), table_(table) {}

  const std::string& label() const { return label_; }

  Status Error(std::string_view key, const std::string& what, const toml::node* node = nullptr) const {
    std::string message = context_.display_path + ": " + KeyPath(key) + ": " + what;
    if (node && node->source().begin.line > 0) {
      message += " (line " + std::to_string(node->source().begin.line) + ")";
    }
    return Status::InvalidArgument(std::move(message));
  }

  std::string KeyPath(std::string_view key) const {
    return label_.empty() ? std::string(key) : label_ + " " + std::string(key);
  }

  const toml::node* Find(std::string_view key) {
    if (!table_) return nullptr;
    const toml::node* node = table_->get(key);
    if (node) used_.insert(std::string(key));
    return node;
  }

  Result<std::optional<std::string>> String(std::string_view key) {
    const toml::node* node = Find(key);
    if (!node) return std::optional<std::string>();
    const auto* value = node->as_string();
    if (!value) return Error(key, "expected a string, got " + DescribeTomlValue(*node), node);
    FLOE_ASSIGN_OR_RETURN(std::string expanded, Expand(key, value->get(), node));
    return std::optional<std::string>(std::move(expanded));
  }

  Result<std::optional<bool>> Bool(std::string_view key) {
    const toml::node* node = Find(key);
    if (!node) return std::optional<bool>();
    const auto* value = node->as_boolean();
    if (!value) return Error(key, "expected true or false, got " + DescribeTomlValue(*node), node);
    return std::optional<bool>(value->get());
  }

  Result<std::optional<int64_t>> Integer(std::string_view key, int64_t min, int64_t max) {
    const toml::node* node = Find(key);
    if (!node) return std::optional<int64_t>();
    const auto* value = node->as_integer();
    if (!value) return Error(key, "expected an integer, got " + DescribeTomlValue(*node), node);
    if (value->get() < min || value->get() > max) {
      return Error(key,
                   "must be between " + std::to_string(min) + " and " + std::to_string(max) + ", got " +
                       std::to_string(value->get()),
                   node);
    }
    return std::optional<int64_t>(value->get());
  }

  // A duration string or a number of seconds.
  Result<std::optional<int64_t>> Duration(std::string_view key) {
    const toml::node* node = Find(key);
    if (!node) return std::optional<int64_t>();
    std::optional<int64_t> ms;
    if (const auto* i = node->as_integer()) {
      if (i->get() < 0) return Error(key, "must not be negative, got " + DescribeTomlValue(*node), node);
      if (i->get() <= kMaxDurationMs / 1000) ms = i->get() * 1000;
    } else if (const auto* f = node->as_floating_point()) {
      double seconds = f->get();
      if (std::isfinite(seconds) && seconds >= 0 && seconds * 1000 <= static_cast<double>(kMaxDurationMs)) {
        ms = static_cast<int64_t>(std::llround(seconds * 1000));
      }
    } else if (const auto* s = node->as_string()) {
      FLOE_ASSIGN_OR_RETURN(std::string text, Expand(key, s->get(), node));
      ms = DurationMsFromText(text);
    }
    if (!ms) {
      return Error(key,
                   "expected a duration like \"60s\" or a number of seconds, got " + DescribeTomlValue(*node),
                   node);
    }
    return ms;
  }

  // A size string or a number of bytes.
  Result<std::optional<int64_t>> Size(std::string_view key) {
    const toml::node* node = Find(key);
    if (!node) return std::optional<int64_t>();
    std::optional<int64_t> bytes;
    if (const auto* i = node->as_integer()) {
      if (i->get() < 0) return Error(key, "must not be negative, got " + DescribeTomlValue(*node), node);
      if (i->get() <= kMaxSizeBytes) bytes = i->get();
    } else if (const auto* s = node->as_string()) {
      FLOE_ASSIGN_OR_RETURN(std::string text, Expand(key, s->get(), node));
      bytes = SizeBytesFromText(text);
    }
    if (!bytes) {
      return Error(
          key, "expected a size like \"128MiB\" or a number of bytes, got " + DescribeTomlValue(*node), node);
    }
    return bytes;
  }

  Result<std::optional<std::vector<std::string>>> StringArray(std::string_view key) {
    const toml::node* node = Find(key);
    if (!node) return std::optional<std::vector<std::string>>();
    const auto* array = node->as_array();
    if (!array) return Error(key, "expected an array of strings, got " + DescribeTomlValue(*node), node);
    std::vector<std::string> out;
    for (const toml::node& element : *array) {
      const auto* value = element.as_string();
      if (!value)
        return Error(key, "expected an array of strings, found " + DescribeTomlValue(element), &element);
      FLOE_ASSIGN_OR_RETURN(std::string expanded, Expand(key, value->get(), &element));
      out.push_back(std::move(expanded));
    }
    return std::optional<std::vector<std::string>>(std::move(out));
  }

  Result<std::optional<std::vector<int64_t>>> IntegerArray(std::string_view key) {
    const toml::node* node = Find(key);
    if (!node) return std::optional<std::vector<int64_t>>();
    const auto* array = node->as_array();
    if (!array) return Error(key, "expected an array of integers, got " + DescribeTomlValue(*node), node);
    std::vector<int64_t> out;
    for (const toml::node& element : *array) {
      const auto* value = element.as_integer();
      if (!value)
        return Error(key, "expected an array of integers, found " + DescribeTomlValue(element), &element);
      out.push_back(value->get());
    }
    return std::optional<std::vector<int64_t>>(std::move(out));
  }

  // A table whose values are all strings (table properties).
  Result<std::optional<std::map<std::string, std::string>>> StringMap(std::string_view key) {
    const toml::node* node = Find(key);
    if (!node) return std::optional<std::map<std::string, std::string>>();
    const auto* table = node->as_table();
    if (!table) return Error(key, "expected a table of strings, got " + DescribeTomlValue(*node), node);
    std::map<std::string, std::string> out;
    for (const auto& [name, value] : *table) {
      const auto* text = value.as_string();
      if (!text) {
        return Error(std::string(key) + "." + std::string(name.str()),
                     "expected a string, got " + DescribeTomlValue(value), &value);
      }
      FLOE_ASSIGN_OR_RETURN(std::string expanded, Expand(key, text->get(), &value));
      out[std::string(name.str())] = std::move(expanded);
    }
    return std::optional<std::map<std::string, std::string>>(std::move(out));
  }

  // A sub-table (an inline table or a [section.key] one).
  Result<const toml::table*> Table(std::string_view key) {
    const toml::node* node = Find(key);
    if (!node) return static_cast<const toml::table*>(nullptr);
    const auto* table = node->as_table();
    if (!table) return Error(key, "expected a table, got " + DescribeTomlValue(*node), node);
    return table;
  }

  // A reader of `table` in the same parse, its keys written "<label> key" in errors.
  SectionReader Nested(std::string label, const toml::table* table) const {
    return SectionReader(context_, std::move(label), table);
  }

  // One of `choices`; returns its index.
  Result<std::optional<size_t>> Choice(std::string_view key, const std::vector<std::string>& choices) {
    FLOE_ASSIGN_OR_RETURN(std::optional<std::string> text, String(key));
    if (!text) return std::optional<size_t>();
    for (size_t i = 0; i < choices.size(); ++i) {
      if (choices[i] == *text) return std::optional<size_t>(i);
    }
    std::string expected;
    for (size_t i = 0; i < choices.size(); ++i) {
      expected += (i == 0 ? "" : i + 1 == choices.size() ? " or " : ", ") + ("\"" + choices[i] + "\"");
    }
    return Error(key, "expected " + expected + ", got \"" + *text + "\"", table_->get(key));
  }

  // Every key not consumed is an error (a typo must not be silently ignored).
  Status CheckNoUnknownKeys() const {
    if (!table_) return Status::OK();
    for (const auto& [name, node] : *table_) {
      std::string key(name.str());
      if (used_.count(key)) continue;
      std::string what =
          label_.empty() && node.is_table() ? "unknown section [" + key + "]" : "unknown key " + KeyPath(key);
      std::string message = context_.display_path + ": " + what;
      if (node.source().begin.line > 0) message += " (line " + std::to_string(node.source().begin.line) + ")";
      return Status::InvalidArgument(message);
    }
    return Status::OK();
  }

 private:
  // ${NAME} -> the environment variable; an unset variable is an error.
  Result<std::string> Expand(std::string_view key, const std::string& text, const toml::node* node) const {
    std::string out;
    size_t i = 0;
    while (i < text.size()) {
      if (text[i] == '$' && i + 1 < text.size() && text[i + 1] == '{') {
        size_t close = text.find('}', i + 2);
        if (close == std::string::npos) return Error(key, "unterminated ${ in \"" + text + "\"", node);
        std::string name = text.substr(i + 2, close - i - 2);
        if (name.empty()) return Error(key, "empty ${} in \"" + text + "\"", node);
        const char* value = std::getenv(name.c_str());
        if (!value) return Error(key, "environment variable " + name + " is not set", node);
        out += value;
        i = close + 1;
      } else {
        out += text[i++];
      }
    }
    return out;
  }

  const ParseContext& context_;
  std::string label_;
  const toml::table* table_;
  std::set<std::string> used_;
};

}  // namespace floe::ingest::config_internal
