// TopicPattern: the `topic_pattern` of a Kafka source, a regular expression a
// whole topic name must match (as Kafka's Java clients match subscriptions).
//
// Contract: Compile accepts ECMAScript regular expression syntax (the subset
// shared with java.util.regex that topic patterns use: literals, escapes such
// as "\\.", classes, alternation, groups, quantifiers) and rejects an invalid
// or empty pattern with InvalidArgument naming it. Matches is a full match:
// "orders" does not match "orders_v2". Topic names are at most 249 bytes of
// [a-zA-Z0-9._-], so matching time is bounded. Immutable; safe to share
// between threads.
#pragma once

#include <memory>
#include <regex>
#include <string>
#include <string_view>

#include "common/status.h"

namespace floe::kafka {

class TopicPattern {
 public:
  static Result<TopicPattern> Compile(const std::string& pattern);

  bool Matches(std::string_view topic) const;
  const std::string& pattern() const { return pattern_; }

 private:
  TopicPattern(std::string pattern, std::shared_ptr<const std::regex> regex)
      : pattern_(std::move(pattern)), regex_(std::move(regex)) {}

  std::string pattern_;
  std::shared_ptr<const std::regex> regex_;
};

// Internal topics (names starting with "__", such as __consumer_offsets and
// __transaction_state) are never matched by patterns or listed by default.
bool IsInternalTopic(std::string_view topic);

}  // namespace floe::kafka
