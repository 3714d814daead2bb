#include "aws/kinesis/sequence_number.h"

namespace floe::aws::kinesis {

bool IsSequenceNumber(std::string_view text) {
  if (text.empty() || text.size() > kMaxSequenceNumberDigits) return false;
  if (text[0] == '0') return text.size() == 1;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

int CompareSequenceNumbers(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return a.size() < b.size() ? -1 : 1;
  const int order = a.compare(b);
  return order < 0 ? -1 : order > 0 ? 1 : 0;
}

}  // namespace floe::aws::kinesis
