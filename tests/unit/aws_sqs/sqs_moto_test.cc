// floe's SQS client and S3 event parser against moto: bucket notifications
// configured with boto3 on moto's S3 — straight to SQS, through SNS, and
// through EventBridge — arrive as real-shaped messages when boto3 uploads
// objects; floe receives them, parses the test event and the object events
// (keys with spaces, '+' and UTF-8 come back exactly), deletes them in a
// batch, and the visibility timeout hides and returns messages as SQS does.
// Skipped, saying so, where moto_server is not installed.
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <set>
#include <thread>

#include "aws/sqs/s3_event.h"
#include "aws/sqs/sqs_client.h"
#include "moto_test_server.h"

namespace floe::aws::sqs {
namespace {

using json::Json;

class SqsMotoTest : public testing::MotoTest {
 protected:
  std::unique_ptr<SqsClient> Client(const std::string& queue_url) {
    SqsClientOptions options;
    options.queue_url = queue_url;
    options.client.credentials = {"us-east-1", "testing", "testing", "", ""};
    options.client.retry = {4, 10000, 1, 20};
    // moto's queue URLs name its own host, which is where the requests must go.
    auto client = SqsClient::Open(options, MapEnvironment({}));
    EXPECT_TRUE(client.ok()) << client.status().ToString();
    return client.ok() ? std::move(*client) : nullptr;
  }

  static std::string Setup(const std::string& bucket, const std::string& queue, const std::string& route) {
    auto out = moto().Driver(
        {{"command", "s3-notifications"}, {"bucket", bucket}, {"queue", queue}, {"route", route}});
    EXPECT_TRUE(out.ok()) << out.status().ToString();
    return out.ok() ? (*out)["queue_url"].get<std::string>() : "";
  }

  static std::string Upload(const std::string& bucket, const std::string& key, const std::string& body) {
    auto out = moto().Driver({{"command", "s3-put"}, {"bucket", bucket}, {"key", key}, {"body", body}});
    EXPECT_TRUE(out.ok()) << out.status().ToString();
    return out.ok() ? (*out)["etag"].get<std::string>() : "";
  }

  // Receives until `count` messages came or a receive came back empty.
  static std::vector<SqsMessage> ReceiveAtLeast(SqsClient& client, size_t count, int visibility = 60) {
    std::vector<SqsMessage> all;
    for (int i = 0; i < 20 && all.size() < count; ++i) {
      auto batch = client.Receive({10, 1, visibility});
      EXPECT_TRUE(batch.ok()) << batch.status().ToString();
      if (!batch.ok() || batch->empty()) break;
      for (SqsMessage& message : *batch) all.push_back(std::move(message));
    }
    return all;
  }

  // Uploads three objects and checks the notifications floe receives.
  void CheckRoute(const std::string& route, S3EventEnvelope envelope, bool expect_test_event) {
    const std::string bucket = "landing-" + route;
    const std::string queue_url = Setup(bucket, "events-" + route, route);
    ASSERT_FALSE(queue_url.empty());
    auto client = Client(queue_url);
    ASSERT_NE(client, nullptr);
    const std::map<std::string, std::string> objects = {
        {"cda/cc_claim/red flower+1.parquet", "alpha"},
        {"cda/\xC3\xA9t\xC3\xA9/x=1/part-0.parquet", "beta beta"},
        {"plain.parquet", "g"}};
    std::map<std::string, std::string> etags;
    for (const auto& [key, body] : objects) etags[key] = Upload(bucket, key, body);

    std::vector<SqsMessage> messages = ReceiveAtLeast(*client, objects.size() + (expect_test_event ? 1 : 0));
    int test_events = 0;
    std::map<std::string, S3ObjectEvent> events;
    std::vector<BatchEntry> to_delete;
    for (const SqsMessage& message : messages) {
      ASSERT_OK_AND_ASSIGN(S3EventMessage parsed, ParseS3EventMessage(message.body, message.message_id));
      if (parsed.test_event) {
        ++test_events;
      } else {
        EXPECT_EQ(parsed.envelope, envelope) << message.body;
        for (const S3ObjectEvent& event : parsed.events) events[event.key] = event;
      }
      to_delete.push_back({"m" + std::to_string(to_delete.size()), message.receipt_handle, 0});
      EXPECT_EQ(message.attributes.count("ApproximateReceiveCount"), 1u);
    }
    EXPECT_EQ(test_events, expect_test_event ? 1 : 0);
    ASSERT_EQ(events.size(), objects.size());
    for (const auto& [key, body] : objects) {
      ASSERT_EQ(events.count(key), 1u) << key;
      const S3ObjectEvent& event = events[key];
      // moto 5.2.1 labels EventBridge PutObject events "Object Tags Added" (its
      // detail-type lookup falls through); AWS's "Object Created" is checked in
      // s3_event_test with AWS's documented example.
      if (envelope != S3EventEnvelope::kEventBridge) {
        EXPECT_EQ(event.kind, S3EventKind::kObjectCreated) << event.event_name;
      }
      EXPECT_EQ(event.bucket, bucket);
      EXPECT_EQ(event.size, static_cast<int64_t>(body.size()));
      EXPECT_EQ(event.etag, etags[key]);
    }
    ASSERT_OK_AND_ASSIGN(std::vector<BatchOutcome> deleted, client->DeleteBatch(to_delete));
    ASSERT_EQ(deleted.size(), to_delete.size());
    for (const BatchOutcome& outcome : deleted) EXPECT_TRUE(outcome.ok) << outcome.id << " " << outcome.error;
    ASSERT_OK_AND_ASSIGN(std::vector<SqsMessage> after, client->Receive({10, 0, 60}));
    EXPECT_TRUE(after.empty());
  }
};

TEST_F(SqsMotoTest, DirectNotificationsArriveAndParse) {
  CheckRoute("direct", S3EventEnvelope::kS3, /*expect_test_event=*/true);
}

TEST_F(SqsMotoTest, NotificationsThroughSnsArriveWrapped) {
  CheckRoute("sns", S3EventEnvelope::kSns, /*expect_test_event=*/true);
}

TEST_F(SqsMotoTest, EventBridgeDeliveredEventsParse) {
  CheckRoute("eventbridge", S3EventEnvelope::kEventBridge, /*expect_test_event=*/false);
}

TEST_F(SqsMotoTest, VisibilityTimeoutHidesAndReturnsMessages) {
  const std::string queue_url = Setup("landing-visibility", "events-visibility", "direct");
  auto client = Client(queue_url);
  ASSERT_NE(client, nullptr);
  // Drop the test event.
  for (const SqsMessage& message : ReceiveAtLeast(*client, 1)) {
    ASSERT_OK(client->DeleteBatch({{"t", message.receipt_handle, 0}}));
  }
  Upload("landing-visibility", "a.parquet", "x");
  Upload("landing-visibility", "b.parquet", "y");
  std::vector<SqsMessage> first = ReceiveAtLeast(*client, 2, /*visibility=*/30);
  ASSERT_EQ(first.size(), 2u);
  ASSERT_OK_AND_ASSIGN(std::vector<SqsMessage> hidden, client->Receive({10, 0, 30}));
  EXPECT_TRUE(hidden.empty());
  // Making one visible again returns it, and only it.
  ASSERT_OK_AND_ASSIGN(std::vector<BatchOutcome> changed,
                       client->ChangeVisibilityBatch({{"v0", first[0].receipt_handle, 0}}));
  ASSERT_EQ(changed.size(), 1u);
  EXPECT_TRUE(changed[0].ok) << changed[0].error;
  ASSERT_OK_AND_ASSIGN(std::vector<SqsMessage> again, client->Receive({10, 1, 1}));
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0].message_id, first[0].message_id);
  EXPECT_EQ(again[0].attributes["ApproximateReceiveCount"], "2");
  // A one-second visibility lapses by itself.
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  ASSERT_OK_AND_ASSIGN(std::vector<SqsMessage> lapsed, client->Receive({10, 1, 30}));
  ASSERT_EQ(lapsed.size(), 1u);
  EXPECT_EQ(lapsed[0].message_id, first[0].message_id);
  // ChangeVisibility on the other one, then delete both.
  ASSERT_OK(client->ChangeVisibility(first[1].receipt_handle, 0));
  ASSERT_OK_AND_ASSIGN(std::vector<SqsMessage> other, client->Receive({10, 1, 30}));
  ASSERT_EQ(other.size(), 1u);
  EXPECT_EQ(other[0].message_id, first[1].message_id);
  ASSERT_OK_AND_ASSIGN(
      std::vector<BatchOutcome> deleted,
      client->DeleteBatch({{"d0", lapsed[0].receipt_handle, 0}, {"d1", other[0].receipt_handle, 0}}));
  for (const BatchOutcome& outcome : deleted) EXPECT_TRUE(outcome.ok) << outcome.error;
}

TEST_F(SqsMotoTest, MissingQueueIsNotFound) {
  auto client = Client(moto().url() + "/123456789012/no-such-queue");
  ASSERT_NE(client, nullptr);
  auto received = client->Receive({1, 0, -1});
  ASSERT_FALSE(received.ok());
  EXPECT_EQ(received.status().kind(), ErrorKind::kNotFound) << received.status().ToString();
  EXPECT_NE(received.status().message().find("no-such-queue"), std::string::npos);
}

}  // namespace
}  // namespace floe::aws::sqs
