#include "ingest/stream_positions.h"

#include <algorithm>

#include "iceberg/spec/snapshot_ancestry.h"
#include "maintenance/maintenance.h"

namespace floe::ingest {

std::string StreamEndsSummaryKey(const std::string& pipeline) {
  return std::string(maintenance::kCarriedSummaryPrefix) + pipeline;
}

std::string FormatStreamEnds(const StreamEnds& ends) {
  std::string text;
  for (const auto& [where, last] : ends) {
    if (!text.empty()) text += ',';
    text += where.first + "/" + where.second + "/" + last;
  }
  return text;
}

Result<StreamEnds> ParseStreamEnds(const std::string& text) {
  StreamEnds ends;
  size_t start = 0;
  while (start < text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    const std::string entry = text.substr(start, comma - start);
    start = comma + 1;
    // Topic and stream names hold no '/', positions are digits: split from the right.
    const size_t last_slash = entry.rfind('/');
    const size_t partition_slash = last_slash == std::string::npos || last_slash == 0
                                       ? std::string::npos
                                       : entry.rfind('/', last_slash - 1);
    const std::string last = last_slash == std::string::npos ? std::string() : entry.substr(last_slash + 1);
    const bool digits = !last.empty() && last.find_first_not_of("0123456789") == std::string::npos;
    if (partition_slash == std::string::npos || partition_slash == 0 || partition_slash + 1 == last_slash ||
        !digits) {
      return Status::Corruption("stream end \"" + entry + "\" is not <stream>/<partition>/<position>");
    }
    std::string& end = ends[{entry.substr(0, partition_slash),
                             entry.substr(partition_slash + 1, last_slash - partition_slash - 1)}];
    if (end.empty() || ComparePositions(last, end) > 0) end = last;
  }
  return ends;
}

bool RaiseStreamEnds(const StreamEnds& from, StreamEnds* into) {
  bool moved = false;
  for (const auto& [where, last] : from) {
    std::string& end = (*into)[where];
    if (end.empty() || ComparePositions(last, end) > 0) {
      end = last;
      moved = true;
    }
  }
  return moved;
}

void AdvanceStreamEnds(const std::vector<SourceUnit>& batch, StreamEnds* ends) {
  for (const SourceUnit& unit : batch) {
    if (unit.kind != UnitKind::kStreamRange) continue;
    std::string& end = (*ends)[{unit.range.stream, unit.range.partition}];
    if (end.empty() || ComparePositions(unit.range.last, end) > 0) end = unit.range.last;
  }
}

Result<StreamEnds> TableStreamEnds(const iceberg::TableMetadata& table, const std::string& pipeline) {
  const std::string key = StreamEndsSummaryKey(pipeline);
  for (const iceberg::Snapshot* snapshot : iceberg::CurrentAncestors(table)) {
    auto found = snapshot->summary.find(key);
    if (found == snapshot->summary.end()) continue;
    auto ends = ParseStreamEnds(found->second);
    if (!ends.ok()) {
      return ends.status().WithContext("snapshot " + std::to_string(snapshot->snapshot_id) + " summary " +
                                       key);
    }
    return ends;
  }
  return StreamEnds{};
}

}  // namespace floe::ingest
