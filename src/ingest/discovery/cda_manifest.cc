#include "ingest/discovery/cda_manifest.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>

#include "common/strings.h"

namespace floe::ingest {
namespace {

using Json = nlohmann::json;

// A manifest is three levels deep; anything much deeper is not a manifest and
// is refused before the JSON library builds it.
constexpr int kMaxNesting = 16;
// Table names and fingerprints become folder names.
constexpr size_t kMaxNameBytes = 255;
// Enough for every real manifest (~700 tables, a few hundred KB).
constexpr size_t kMaxManifestBytes = size_t{64} << 20;

// `s` for an error message: quoted, control bytes escaped, long text cut.
std::string Quoted(std::string_view s) {
  constexpr size_t kMaxShown = 64;
  std::string out = "\"";
  for (size_t i = 0; i < s.size() && i < kMaxShown; ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20 || c == 0x7f) {
      out += "\\x";
      out += kLowerHexDigits[c >> 4];
      out += kLowerHexDigits[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  if (s.size() > kMaxShown) out += "...";
  out += '"';
  return out;
}

// A JSON value for an error message, bounded in length.
std::string Shown(const Json& value) {
  if (value.is_string()) return Quoted(value.get_ref<const std::string&>());
  if (value.is_object()) return "an object";
  if (value.is_array()) return "an array";
  std::string text = value.dump(-1, ' ', false, Json::error_handler_t::replace);
  if (text.size() > 64) text = text.substr(0, 64) + "...";
  return text;
}

// Deepest bracket nesting outside strings; stops counting at kMaxNesting + 1.
int NestingDepth(std::string_view text) {
  int depth = 0;
  int deepest = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      deepest = std::max(deepest, ++depth);
      if (deepest > kMaxNesting) return deepest;
    } else if (c == '}' || c == ']') {
      --depth;
    }
  }
  return deepest;
}

// A non-negative integer given as a JSON number or a string of digits.
bool ToNonNegativeInteger(const Json& value, int64_t& out) {
  if (value.is_number_unsigned()) {
    uint64_t v = value.get<uint64_t>();
    if (v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return false;
    out = static_cast<int64_t>(v);
    return true;
  }
  if (value.is_number_integer()) {
    int64_t v = value.get<int64_t>();
    if (v < 0) return false;
    out = v;
    return true;
  }
  if (value.is_number_float()) {
    // Some writers emit 1562112543759.0; accept integral values a double holds exactly.
    double v = value.get<double>();
    if (!std::isfinite(v) || v < 0 || v > 9007199254740992.0 || std::floor(v) != v) return false;
    out = static_cast<int64_t>(v);
    return true;
  }
  if (value.is_string()) {
    const std::string& s = value.get_ref<const std::string&>();
    if (s.empty() || s.size() > 18) return false;  // 18 digits always fit int64
    int64_t v = 0;
    for (char c : s) {
      if (c < '0' || c > '9') return false;
      v = v * 10 + (c - '0');
    }
    out = v;
    return true;
  }
  return false;
}

// Why `name` cannot be a folder name, or "" when it can.
std::string NameProblem(std::string_view name) {
  if (name.empty()) return "is empty";
  if (name.size() > kMaxNameBytes) return "is longer than 255 bytes";
  if (name == "." || name == "..") return "is not a folder name";
  for (char c : name) {
    unsigned char u = static_cast<unsigned char>(c);
    if (c == '/' || c == '\\') return "contains a path separator";
    if (u < 0x20 || u == 0x7f) return "contains a control character";
  }
  return "";
}

// A timestamp after this machine's clock plus a day cannot have been written
// yet: accepting it would poison the table's watermark (every later, real
// value would look like the export going backwards).
constexpr int64_t kMaxClockAheadMs = int64_t{24} * 3600 * 1000;

std::string FutureProblem(int64_t ms) {
  const int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
  if (ms <= now + kMaxClockAheadMs) return "";
  return std::to_string(ms) + " is more than a day ahead of this machine's clock (" + std::to_string(now) +
         " ms since 1970)";
}

Status ParseTable(const std::string& name, const Json& body, const std::string& uri, CdaTableEntry& entry) {
  const std::string where = uri + ": table " + name + ": ";
  if (!body.is_object()) {
    return Status::InvalidArgument(where + "expected an object, got " + Shown(body));
  }
  entry.table = name;

  auto it = body.find("lastSuccessfulWriteTimestamp");
  if (it == body.end()) {
    return Status::InvalidArgument(where + "lastSuccessfulWriteTimestamp: missing");
  }
  if (!ToNonNegativeInteger(*it, entry.last_successful_write_ms)) {
    return Status::InvalidArgument(where + "lastSuccessfulWriteTimestamp: expected epoch milliseconds, got " +
                                   Shown(*it));
  }
  if (std::string future = FutureProblem(entry.last_successful_write_ms); !future.empty()) {
    return Status::InvalidArgument(where + "lastSuccessfulWriteTimestamp: " + future);
  }

  it = body.find("totalProcessedRecordsCount");
  if (it != body.end() && !it->is_null() && !ToNonNegativeInteger(*it, entry.total_processed_records)) {
    return Status::InvalidArgument(where + "totalProcessedRecordsCount: expected a record count, got " +
                                   Shown(*it));
  }

  it = body.find("dataFilesPath");
  if (it != body.end() && !it->is_null()) {
    if (!it->is_string()) {
      return Status::InvalidArgument(where + "dataFilesPath: expected a string, got " + Shown(*it));
    }
    entry.data_files_path = it->get_ref<const std::string&>();
  }

  it = body.find("schemaHistory");
  if (it == body.end()) return Status::InvalidArgument(where + "schemaHistory: missing");
  if (!it->is_object()) {
    return Status::InvalidArgument(
        where + "schemaHistory: expected an object of fingerprint -> start time, got " + Shown(*it));
  }
  for (const auto& [fingerprint, start] : it->items()) {
    std::string problem = NameProblem(fingerprint);
    if (!problem.empty()) {
      return Status::InvalidArgument(where + "schemaHistory: fingerprint " + Quoted(fingerprint) + " " +
                                     problem);
    }
    CdaSchemaVersion version;
    version.fingerprint = fingerprint;
    if (!ToNonNegativeInteger(start, version.start_ms)) {
      return Status::InvalidArgument(where + "schemaHistory: fingerprint " + fingerprint +
                                     ": expected epoch milliseconds, got " + Shown(start));
    }
    if (std::string future = FutureProblem(version.start_ms); !future.empty()) {
      return Status::InvalidArgument(where + "schemaHistory: fingerprint " + fingerprint + ": " + future);
    }
    entry.schema_history.push_back(std::move(version));
  }
  std::sort(entry.schema_history.begin(), entry.schema_history.end(),
            [](const CdaSchemaVersion& a, const CdaSchemaVersion& b) {
              if (a.start_ms != b.start_ms) return a.start_ms < b.start_ms;
              return a.fingerprint < b.fingerprint;
            });
  return Status::OK();
}

}  // namespace

Result<CdaManifest> ParseCdaManifest(std::string_view json, const std::string& uri) {
  if (json.size() > kMaxManifestBytes) {
    return Status::InvalidArgument(uri + ": " + std::to_string(json.size()) +
                                   " bytes is larger than a CDA manifest can be (64 MiB)");
  }
  if (NestingDepth(json) > kMaxNesting) {
    return Status::InvalidArgument(uri + ": not a CDA manifest: JSON nested deeper than " +
                                   std::to_string(kMaxNesting) + " levels");
  }
  Json root = Json::parse(json.begin(), json.end(), nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded()) {
    return Status::InvalidArgument(uri + ": not valid JSON");
  }
  if (!root.is_object()) {
    return Status::InvalidArgument(uri + ": expected an object of table name -> table entry, got " +
                                   Shown(root));
  }
  CdaManifest manifest;
  for (const auto& [name, body] : root.items()) {
    std::string problem = NameProblem(name);
    if (!problem.empty()) {
      return Status::InvalidArgument(uri + ": table name " + Quoted(name) + " " + problem);
    }
    CdaTableEntry entry;
    FLOE_RETURN_IF_ERROR(ParseTable(name, body, uri, entry));
    manifest.tables.emplace(name, std::move(entry));
  }
  return manifest;
}

}  // namespace floe::ingest
