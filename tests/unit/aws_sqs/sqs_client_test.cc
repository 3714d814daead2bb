// ReceiveMessage answers: a message whose body does not match its MD5OfBody
// is marked (naming it) and its neighbours in the answer are read as usual;
// a malformed answer is an error naming the queue call.
#include "aws/sqs/sqs_client.h"

#include <gtest/gtest.h>

#include "aws/digest.h"
#include "test_util.h"

namespace floe::aws::sqs {
namespace {

using json::Json;

TEST(SqsClientTest, AMessageFailingItsMd5IsMarkedAndItsNeighboursAreRead) {
  const std::string good = R"({"Event":"s3:TestEvent"})";
  Json answer = {
      {"Messages",
       {{{"MessageId", "m1"}, {"ReceiptHandle", "r1"}, {"Body", good}, {"MD5OfBody", Md5Hex(good)}},
        {{"MessageId", "m2"},
         {"ReceiptHandle", "r2"},
         {"Body", "damaged in transit"},
         {"MD5OfBody", Md5Hex("what was sent")}},
        {{"MessageId", "m3"},
         {"ReceiptHandle", "r3"},
         {"Body", good},
         {"Attributes", {{"ApproximateReceiveCount", "4"}}}}}}};
  ASSERT_OK_AND_ASSIGN(std::vector<SqsMessage> messages,
                       ParseReceiveAnswer(answer, "SQS ReceiveMessage from q"));
  ASSERT_EQ(messages.size(), 3u);
  EXPECT_TRUE(messages[0].body_error.empty());
  EXPECT_EQ(messages[1].body_error,
            "SQS ReceiveMessage from q, message m2: the body does not match its MD5OfBody (" +
                Md5Hex("what was sent") + ")");
  EXPECT_EQ(messages[1].receipt_handle, "r2");
  EXPECT_TRUE(messages[2].body_error.empty());
  EXPECT_EQ(messages[2].attributes.at("ApproximateReceiveCount"), "4");
}

TEST(SqsClientTest, AMalformedAnswerNamesTheCall) {
  auto missing_handle =
      ParseReceiveAnswer(Json{{"Messages", {{{"MessageId", "m1"}}}}}, "SQS ReceiveMessage from q");
  ASSERT_FALSE(missing_handle.ok());
  EXPECT_NE(missing_handle.status().message().find("message m1"), std::string::npos)
      << missing_handle.status().ToString();
  ASSERT_OK_AND_ASSIGN(std::vector<SqsMessage> none, ParseReceiveAnswer(Json::object(), "q"));
  EXPECT_TRUE(none.empty());
}

}  // namespace
}  // namespace floe::aws::sqs
