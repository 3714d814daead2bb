#include "stream/kafka/topic_pattern.h"

#include <gtest/gtest.h>

#include "test_util.h"

namespace floe::kafka {
namespace {

TEST(TopicPatternTest, MatchesWholeTopicNames) {
  ASSERT_OK_AND_ASSIGN(auto pattern, TopicPattern::Compile("dbserver1\\.inventory\\..*"));
  EXPECT_TRUE(pattern.Matches("dbserver1.inventory.customers"));
  EXPECT_TRUE(pattern.Matches("dbserver1.inventory.orders"));
  EXPECT_FALSE(pattern.Matches("dbserver1.inventoryX.orders"));  // the dot is literal
  EXPECT_FALSE(pattern.Matches("xdbserver1.inventory.orders"));  // anchored at the start
  EXPECT_FALSE(pattern.Matches("dbserver1.inventory"));

  ASSERT_OK_AND_ASSIGN(auto exact, TopicPattern::Compile("orders"));
  EXPECT_TRUE(exact.Matches("orders"));
  EXPECT_FALSE(exact.Matches("orders_v2"));  // anchored at the end

  ASSERT_OK_AND_ASSIGN(auto alternatives, TopicPattern::Compile("(orders|customers)-[0-9]+"));
  EXPECT_TRUE(alternatives.Matches("customers-12"));
  EXPECT_FALSE(alternatives.Matches("customers-"));
  EXPECT_EQ(alternatives.pattern(), "(orders|customers)-[0-9]+");
}

TEST(TopicPatternTest, InternalTopicsNeverMatch) {
  ASSERT_OK_AND_ASSIGN(auto all, TopicPattern::Compile(".*"));
  EXPECT_TRUE(all.Matches("_schemas"));
  EXPECT_FALSE(all.Matches("__consumer_offsets"));
  EXPECT_FALSE(all.Matches("__transaction_state"));
  EXPECT_TRUE(IsInternalTopic("__consumer_offsets"));
  EXPECT_FALSE(IsInternalTopic("_schemas"));
}

TEST(TopicPatternTest, InvalidPatternsAreRejected) {
  for (const char* bad : {"", "orders(", "[a-", "*x"}) {
    auto pattern = TopicPattern::Compile(bad);
    ASSERT_FALSE(pattern.ok()) << bad;
    EXPECT_EQ(pattern.status().kind(), ErrorKind::kInvalidArgument);
    EXPECT_NE(pattern.status().message().find("topic_pattern"), std::string::npos);
  }
}

}  // namespace
}  // namespace floe::kafka
