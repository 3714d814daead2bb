#include "ingest/units/source_unit.h"

namespace floe::ingest {

int ComparePositions(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return a.size() < b.size() ? -1 : 1;
  const int order = a.compare(b);
  return order < 0 ? -1 : order > 0 ? 1 : 0;
}

std::string ZeroPadded(int64_t value, size_t width) {
  std::string text = std::to_string(value);
  if (text.size() < width) text.insert(0, width - text.size(), '0');
  return text;
}

std::string StreamRangeUri(const std::string& scheme, const StreamRange& range) {
  return scheme + "://" + range.stream + "/" + range.partition + "/" + range.first + "-" + range.last;
}

}  // namespace floe::ingest
