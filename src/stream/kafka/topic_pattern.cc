#include "stream/kafka/topic_pattern.h"

namespace floe::kafka {

Result<TopicPattern> TopicPattern::Compile(const std::string& pattern) {
  if (pattern.empty()) return Status::InvalidArgument("topic_pattern is empty");
  try {
    auto regex = std::make_shared<const std::regex>(pattern, std::regex::ECMAScript);
    return TopicPattern(pattern, std::move(regex));
  } catch (const std::regex_error& e) {
    return Status::InvalidArgument("topic_pattern \"" + pattern +
                                   "\" is not a valid regular expression: " + e.what());
  }
}

bool TopicPattern::Matches(std::string_view topic) const {
  if (IsInternalTopic(topic)) return false;
  try {
    return std::regex_match(topic.begin(), topic.end(), *regex_);
  } catch (const std::regex_error&) {
    // Only a pathological pattern exhausts the matcher's stack or complexity
    // limit; such a topic simply does not match.
    return false;
  }
}

bool IsInternalTopic(std::string_view topic) {
  return topic.starts_with("__");
}

}  // namespace floe::kafka
