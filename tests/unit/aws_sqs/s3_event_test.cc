// S3 event notification parsing: the shapes AWS documents (S3's event
// records, SNS-wrapped, EventBridge, s3:TestEvent), URL-encoded keys, the
// sequencer order; malformed messages are Corruption naming the message id.
#include "aws/sqs/s3_event.h"

#include <gtest/gtest.h>

#include "test_util.h"

namespace floe::aws::sqs {
namespace {

// The example of AWS's "Event message structure" page (version 2.1), with a
// key that needs decoding.
constexpr char kS3Event[] =
    R"({"Records":[{"eventVersion":"2.1","eventSource":"aws:s3","awsRegion":"us-west-2",
 "eventTime":"2024-05-01T12:00:00.123Z","eventName":"ObjectCreated:Put",
 "userIdentity":{"principalId":"AWS:AIDAEXAMPLE"},"requestParameters":{"sourceIPAddress":"203.0.113.1"},
 "responseElements":{"x-amz-request-id":"C3D13FE58DE4C810","x-amz-id-2":"FMyUVURIY8/IgAtTv8xRjskZQpcIZ9KG4V5Wp6S7S/JRWeUWerMUE5JgHvANOjpD"},
 "s3":{"s3SchemaVersion":"1.0","configurationId":"landing","bucket":{"name":"lake-landing",
 "ownerIdentity":{"principalId":"A3NL1KOZZKExample"},"arn":"arn:aws:s3:::lake-landing"},
 "object":{"key":"cda/cc_claim/red+flower%2B%C3%A9t%C3%A9.parquet","size":1024,"eTag":"d41d8cd98f00b204e9800998ecf8427e",
 "versionId":"096fKKXTRTtl3on89fVO.nfljtsv6qko","sequencer":"0055AED6DCD90281E5"}}}]})";

TEST(S3EventTest, S3RecordsWithUrlEncodedKeys) {
  ASSERT_OK_AND_ASSIGN(S3EventMessage message, ParseS3EventMessage(kS3Event, "m-1"));
  EXPECT_EQ(message.envelope, S3EventEnvelope::kS3);
  EXPECT_FALSE(message.test_event);
  ASSERT_EQ(message.events.size(), 1u);
  const S3ObjectEvent& e = message.events[0];
  EXPECT_EQ(e.event_name, "ObjectCreated:Put");
  EXPECT_EQ(e.kind, S3EventKind::kObjectCreated);
  EXPECT_EQ(e.bucket, "lake-landing");
  EXPECT_EQ(e.key, "cda/cc_claim/red flower+\xC3\xA9t\xC3\xA9.parquet");
  EXPECT_EQ(e.Uri(), "s3://lake-landing/cda/cc_claim/red flower+\xC3\xA9t\xC3\xA9.parquet");
  EXPECT_EQ(e.size, 1024);
  EXPECT_EQ(e.etag, "d41d8cd98f00b204e9800998ecf8427e");
  EXPECT_EQ(e.version_id, "096fKKXTRTtl3on89fVO.nfljtsv6qko");
  EXPECT_EQ(e.sequencer, "0055AED6DCD90281E5");
  EXPECT_EQ(e.region, "us-west-2");
  EXPECT_EQ(e.event_time_ms, 1714564800123);
}

TEST(S3EventTest, SnsEnvelopeIsUnwrappedOnce) {
  std::string inner = kS3Event;
  std::string escaped;
  for (char c : inner) {
    if (c == '"' || c == '\\') escaped.push_back('\\');
    if (c == '\n') {
      escaped += "\\n";
      continue;
    }
    escaped.push_back(c);
  }
  const std::string body = R"({"Type":"Notification","MessageId":"22b80b92-fdea-4c2c-8f9d-bdfb0c7bf324",
    "TopicArn":"arn:aws:sns:us-west-2:123456789012:landing","Subject":"Amazon S3 Notification",
    "Message":")" + escaped +
                           R"(","Timestamp":"2024-05-01T12:00:01.000Z","SignatureVersion":"1"})";
  ASSERT_OK_AND_ASSIGN(S3EventMessage message, ParseS3EventMessage(body, "m-2"));
  EXPECT_EQ(message.envelope, S3EventEnvelope::kSns);
  ASSERT_EQ(message.events.size(), 1u);
  EXPECT_EQ(message.events[0].key, "cda/cc_claim/red flower+\xC3\xA9t\xC3\xA9.parquet");
}

TEST(S3EventTest, EventBridgeKeysAreNotDecoded) {
  const std::string body =
      R"({"version":"0","id":"17793124-05d4-b198-2fde-7ededc63b103","detail-type":"Object Created",
    "source":"aws.s3","account":"111122223333","time":"2021-11-12T00:00:00Z","region":"ca-central-1",
    "resources":["arn:aws:s3:::example-bucket"],"detail":{"version":"0","bucket":{"name":"example-bucket"},
    "object":{"key":"a+b c.parquet","size":5,"etag":"b1946ac92492d2347c6235b4d2611184","version-id":"IYV3p45BT0ac8hjHg1houSdS1a.Mro8e",
    "sequencer":"617f08299329d189"},"request-id":"N4N7GDK58NMKJ12R","requester":"123456789012",
    "source-ip-address":"1.2.3.4","reason":"PutObject"}})";
  ASSERT_OK_AND_ASSIGN(S3EventMessage message, ParseS3EventMessage(body, "m-3"));
  EXPECT_EQ(message.envelope, S3EventEnvelope::kEventBridge);
  ASSERT_EQ(message.events.size(), 1u);
  EXPECT_EQ(message.events[0].kind, S3EventKind::kObjectCreated);
  EXPECT_EQ(message.events[0].key, "a+b c.parquet");
  EXPECT_EQ(message.events[0].size, 5);
  EXPECT_EQ(message.events[0].sequencer, "617f08299329d189");
  EXPECT_EQ(message.events[0].event_time_ms, 1636675200000);
}

TEST(S3EventTest, TestEventAndOtherKinds) {
  ASSERT_OK_AND_ASSIGN(
      S3EventMessage test,
      ParseS3EventMessage(R"({"Service":"Amazon S3","Event":"s3:TestEvent","Time":"2024-05-01T12:00:00.000Z",
                         "Bucket":"lake-landing","RequestId":"5582815E1AEA5ADF","HostId":"8cLeGAmw098X5cv4Zkwcmo8vvZa3eH3eKxsPzbB9wrR+YstdA6Knx4Ip8EXAMPLE"})",
                          "m-4"));
  EXPECT_TRUE(test.test_event);
  EXPECT_TRUE(test.events.empty());
  ASSERT_OK_AND_ASSIGN(
      S3EventMessage removed,
      ParseS3EventMessage(
          R"({"Records":[{"eventSource":"aws:s3","eventName":"ObjectRemoved:Delete","s3":{"bucket":{"name":"b"},"object":{"key":"k","sequencer":"0A"}}}]})",
          "m-5"));
  ASSERT_EQ(removed.events.size(), 1u);
  EXPECT_EQ(removed.events[0].kind, S3EventKind::kObjectRemoved);
  EXPECT_EQ(removed.events[0].size, -1);
}

TEST(S3EventTest, MalformedMessagesNameTheMessageId) {
  const std::vector<std::string> bodies = {
      "not json",
      "[]",
      R"({"hello":"world"})",
      R"({"Records":"x"})",
      R"({"Records":[{"eventSource":"aws:sqs","eventName":"x"}]})",
      R"({"Records":[{"eventSource":"aws:s3","eventName":"ObjectCreated:Put","s3":{"bucket":{"name":"b"}}}]})",
      R"({"Records":[{"eventSource":"aws:s3","eventName":"ObjectCreated:Put","s3":{"bucket":{"name":"b"},"object":{"key":"bad%zz"}}}]})",
      R"({"Records":[{"eventSource":"aws:s3","eventName":"ObjectCreated:Put","s3":{"bucket":{"name":"b"},"object":{"key":"k","size":-5}}}]})",
      R"({"Type":"Notification","Message":"{not json"})",
      R"({"Type":"Notification","Message":"{\"Type\":\"Notification\",\"Message\":\"{}\"}"})",
      R"({"source":"aws.s3","detail-type":"Object Created","detail":{"bucket":{}}})",
  };
  for (const std::string& body : bodies) {
    auto parsed = ParseS3EventMessage(body, "msg-42");
    ASSERT_FALSE(parsed.ok()) << body;
    EXPECT_EQ(parsed.status().kind(), ErrorKind::kCorruption) << body;
    EXPECT_NE(parsed.status().message().find("msg-42"), std::string::npos) << parsed.status().message();
  }
}

TEST(S3EventTest, SequencersCompareRightPadded) {
  EXPECT_LT(CompareSequencers("0055AED6DCD90281E5", "0055AED6DCD90281E6"), 0);
  EXPECT_GT(CompareSequencers("0055AED6DCD90281E5", "0055AED6DCD90281E"), 0);  // "...E" pads to "...E0"
  EXPECT_EQ(CompareSequencers("0055AE", "0055ae00"), 0);
  EXPECT_LT(CompareSequencers("", "01"), 0);
}

}  // namespace
}  // namespace floe::aws::sqs
