#include "ingest/discovery/table_path.h"

#include <algorithm>

#include "ingest/discovery/glob.h"

namespace floe::ingest {

namespace {

std::vector<std::string_view> Segments(std::string_view path) {
  std::vector<std::string_view> segments;
  size_t start = 0;
  while (true) {
    const size_t slash = path.find('/', start);
    segments.push_back(
        path.substr(start, slash == std::string_view::npos ? path.size() - start : slash - start));
    if (slash == std::string_view::npos) return segments;
    start = slash + 1;
  }
}

}  // namespace

Result<TablePathTemplate> TablePathTemplate::Parse(std::string_view text) {
  auto error = [&](const std::string& what) {
    return Status::InvalidArgument("[source] table_from_path \"" + std::string(text) + "\": " + what);
  };
  TablePathTemplate parsed;
  parsed.text_ = std::string(text);
  bool crossed = false;  // a ** segment came before
  const std::vector<std::string_view> segments = Segments(text);
  for (size_t i = 0; i < segments.size(); ++i) {
    const std::string_view segment = segments[i];
    if (segment.empty()) return error("has an empty segment (\"//\", or a leading or trailing '/')");
    int* capture = segment == "{table}"    ? &parsed.table_segment_
                   : segment == "{schema}" ? &parsed.schema_segment_
                                           : nullptr;
    if (capture == nullptr) {
      if (segment.find('{') != std::string_view::npos || segment.find('}') != std::string_view::npos) {
        return error("{table} and {schema} must each be a whole segment between '/'");
      }
      if (segment.find("**") != std::string_view::npos) crossed = true;
      parsed.glob_ += std::string(i == 0 ? "" : "/") + std::string(segment);
      continue;
    }
    if (*capture >= 0) return error(std::string(segment) + " appears twice");
    if (crossed) return error(std::string(segment) + " after ** could be any folder; put it before **");
    *capture = static_cast<int>(i);
    parsed.glob_ += std::string(i == 0 ? "" : "/") + "*";
  }
  if (parsed.table_segment_ < 0) return error("needs a {table} segment naming the source table");
  return parsed;
}

std::optional<TablePathTemplate::Match> TablePathTemplate::MatchPath(std::string_view relative_path) const {
  if (!GlobMatch(glob_, relative_path, GlobMode::kPath)) return std::nullopt;
  // Captures sit before any ** and * never crosses '/', so their segments
  // are the template's.
  const std::vector<std::string_view> segments = Segments(relative_path);
  const int last = std::max(table_segment_, schema_segment_);
  // A capture must name a folder, not the file itself.
  if (static_cast<size_t>(last) + 1 >= segments.size()) return std::nullopt;
  Match match;
  match.table = std::string(segments[static_cast<size_t>(table_segment_)]);
  if (schema_segment_ >= 0) match.schema = std::string(segments[static_cast<size_t>(schema_segment_)]);
  if (match.table.empty() || (schema_segment_ >= 0 && match.schema.empty())) return std::nullopt;
  for (int i = 0; i <= last; ++i) match.table_folder_length += segments[static_cast<size_t>(i)].size() + 1;
  match.table_folder_length -= 1;  // no trailing '/'
  return match;
}

}  // namespace floe::ingest
