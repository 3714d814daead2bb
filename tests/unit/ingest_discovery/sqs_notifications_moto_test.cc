// SqsNotifications against moto: S3 event notifications of objects boto3
// uploads arrive as notifications naming s3:// paths; a held message stays
// hidden past its visibility timeout (the keeper extends it) until it is
// acknowledged (deleted) or released (it comes back); a message that is not
// an S3 event is reported, not held, and returns for the queue's redrive
// policy; a stop request abandons a 20 s long poll at once.
// Skipped, saying so, where moto_server is not installed.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "ingest/discovery/sqs_notifications.h"
#include "moto_test_server.h"

namespace floe::ingest {
namespace {

using json::Json;

class SqsNotificationsMotoTest : public testing::MotoTest {
 protected:
  std::unique_ptr<SqsNotifications> Open(const std::string& queue_url, int64_t visibility_ms = 2000) {
    NotificationConfig config;
    config.kind = NotificationKind::kSqs;
    config.queue_url = queue_url;
    config.visibility_timeout_ms = visibility_ms;
    config.wait_time_ms = 20'000;
    s3::S3Options s3;
    s3.access_key_id = "testing";
    s3.secret_access_key = "testing";
    s3.region = "us-east-1";
    auto source = SqsNotifications::Open(config, s3, aws::MapEnvironment({}));
    EXPECT_TRUE(source.ok()) << source.status().ToString();
    return source.ok() ? std::move(*source) : nullptr;
  }

  static Json Driver(const Json& command) {
    auto out = moto().Driver(command);
    EXPECT_TRUE(out.ok()) << out.status().ToString();
    return out.ok() ? *out : Json::object();
  }

  // Receives until `count` notifications (or unreadable ones) came, for at most ~10 s.
  static NotificationBatch ReceiveAtLeast(SqsNotifications& source, size_t count) {
    NotificationBatch all;
    for (int i = 0; i < 10 && all.notifications.size() + all.unreadable.size() < count; ++i) {
      auto batch = source.Receive(1000);
      EXPECT_TRUE(batch.ok()) << batch.status().ToString();
      if (!batch.ok()) break;
      for (Notification& notification : batch->notifications)
        all.notifications.push_back(std::move(notification));
      for (std::string& line : batch->unreadable) all.unreadable.push_back(std::move(line));
    }
    return all;
  }

  static Json Counts(const std::string& queue_url) {
    return Driver({{"command", "sqs-counts"}, {"queue_url", queue_url}});
  }
};

TEST_F(SqsNotificationsMotoTest, UploadsBecomeNotificationsAndAcknowledgedOnesAreDeleted) {
  const std::string queue_url = Driver({{"command", "s3-notifications"},
                                        {"bucket", "notify-a"},
                                        {"queue", "notify-a"},
                                        {"route", "sns"}})["queue_url"];
  auto source = Open(queue_url, 30'000);
  ASSERT_NE(source, nullptr);
  Driver(
      {{"command", "s3-put"}, {"bucket", "notify-a"}, {"key", "landing/x=1/a b+c.parquet"}, {"body", "abc"}});
  NotificationBatch batch = ReceiveAtLeast(*source, 2);  // the test event and the object
  ASSERT_EQ(batch.notifications.size(), 2u);
  std::vector<std::string> ids;
  int test_events = 0;
  for (const Notification& notification : batch.notifications) {
    ids.push_back(notification.id);
    if (notification.test_event) {
      ++test_events;
      continue;
    }
    ASSERT_EQ(notification.events.size(), 1u);
    EXPECT_EQ(notification.events[0].path, "s3://notify-a/landing/x=1/a b+c.parquet");
    EXPECT_EQ(notification.events[0].kind, FileEvent::Kind::kComplete);
  }
  EXPECT_EQ(test_events, 1);
  EXPECT_EQ(source->held(), 2u);
  ASSERT_OK(source->Acknowledge(ids));
  EXPECT_EQ(source->held(), 0u);
  Json counts = Counts(queue_url);
  EXPECT_EQ(counts["visible"], 0);
  EXPECT_EQ(counts["in_flight"], 0);
}

TEST_F(SqsNotificationsMotoTest, HeldMessagesStayHiddenPastTheVisibilityTimeoutUntilReleased) {
  const std::string queue_url = Driver({{"command", "sqs-create"}, {"queue", "notify-held"}})["queue_url"];
  auto source = Open(queue_url, /*visibility_ms=*/2000);
  ASSERT_NE(source, nullptr);
  const std::string body =
      R"({"Records":[{"eventSource":"aws:s3","eventName":"ObjectCreated:Put","s3":{"bucket":{"name":"b"},)"
      R"("object":{"key":"k.parquet","size":3,"sequencer":"0055AED6DCD90281E5"}}}]})";
  Driver({{"command", "sqs-send"}, {"queue_url", queue_url}, {"body", body}});
  NotificationBatch first = ReceiveAtLeast(*source, 1);
  ASSERT_EQ(first.notifications.size(), 1u);
  EXPECT_EQ(first.notifications[0].events[0].sequencer, "0055AED6DCD90281E5");
  // Twice the visibility timeout later it is still hidden.
  std::this_thread::sleep_for(std::chrono::milliseconds(4500));
  Json counts = Counts(queue_url);
  EXPECT_EQ(counts["visible"], 0);
  EXPECT_EQ(counts["in_flight"], 1);
  ASSERT_OK_AND_ASSIGN(NotificationBatch hidden, source->Receive(0));
  EXPECT_TRUE(hidden.notifications.empty());
  EXPECT_TRUE(hidden.warnings.empty());
  // Released, it comes back once its visibility ends, as the same message.
  source->Release({first.notifications[0].id});
  NotificationBatch back = ReceiveAtLeast(*source, 1);
  ASSERT_EQ(back.notifications.size(), 1u);
  EXPECT_EQ(back.notifications[0].id, first.notifications[0].id);
  ASSERT_OK(source->Acknowledge({back.notifications[0].id}));
}

TEST_F(SqsNotificationsMotoTest, UnreadableMessagesAreReportedAndLeftToTheRedrivePolicy) {
  Json created = Driver({{"command", "sqs-create"}, {"queue", "notify-bad"}, {"max_receives", 2}});
  const std::string queue_url = created["queue_url"];
  auto source = Open(queue_url, /*visibility_ms=*/1000);
  ASSERT_NE(source, nullptr);
  Driver({{"command", "sqs-send"}, {"queue_url", queue_url}, {"body", "this is not JSON"}});
  Driver(
      {{"command", "sqs-send"}, {"queue_url", queue_url}, {"body", R"({"source":"aws.ec2","detail":{}})"}});
  NotificationBatch first = ReceiveAtLeast(*source, 2);
  ASSERT_EQ(first.unreadable.size(), 2u);
  EXPECT_TRUE(first.notifications.empty());
  EXPECT_EQ(source->held(), 0u);
  for (const std::string& line : first.unreadable) {
    EXPECT_NE(line.find("SQS message "), std::string::npos) << line;
    EXPECT_NE(line.find("(received 1 time)"), std::string::npos) << line;
  }
  // Not held: they come back, then the redrive policy takes them.
  std::this_thread::sleep_for(std::chrono::milliseconds(1200));
  NotificationBatch second = ReceiveAtLeast(*source, 2);
  ASSERT_EQ(second.unreadable.size(), 2u);
  EXPECT_NE(second.unreadable[0].find("(received 2 times)"), std::string::npos) << second.unreadable[0];
  std::this_thread::sleep_for(std::chrono::milliseconds(1200));
  ASSERT_OK_AND_ASSIGN(NotificationBatch third, source->Receive(0));
  EXPECT_TRUE(third.unreadable.empty());
  Json dead = Counts(created["dlq_url"]);
  EXPECT_EQ(dead["visible"], 2);
}

TEST_F(SqsNotificationsMotoTest, AStopRequestAbandonsALongPoll) {
  const std::string queue_url = Driver({{"command", "sqs-create"}, {"queue", "notify-stop"}})["queue_url"];
  auto source = Open(queue_url);
  ASSERT_NE(source, nullptr);
  std::atomic<bool> stop{false};
  source->SetStopFlag(&stop);
  std::thread stopper([&stop] {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    stop = true;
  });
  const auto started = std::chrono::steady_clock::now();
  auto batch = source->Receive(20'000);
  const auto waited = std::chrono::steady_clock::now() - started;
  stopper.join();
  ASSERT_FALSE(batch.ok());
  EXPECT_EQ(batch.status().kind(), ErrorKind::kCancelled) << batch.status().ToString();
  EXPECT_LT(waited, std::chrono::seconds(3));
}

}  // namespace
}  // namespace floe::ingest
