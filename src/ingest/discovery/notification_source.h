// NotificationSource: where a notification discovery (notification_discovery.h)
// hears of new files — S3 event notifications in an SQS queue
// (sqs_notifications.h) or inotify on a local directory
// (inotify_notifications.h).
//
// Contract:
// - Receive returns the notifications that arrived, waiting up to `wait_ms`
//   for the first one (0: only what is there now). Each names its files by
//   the path the source's FileIO lists them under (s3://bucket/key, or a
//   local path). A notification that cannot be read is described in
//   `unreadable`, naming it, and left to its queue (whose redrive policy
//   decides its end), never an error of the call. `lost` says events were
//   dropped (inotify's queue overflowed, or the directory was not watched
//   for a while): a listing must find what they named. An error of the call
//   is the service's (retryable when trying again may help); a stop request
//   (SetStopFlag) ends a wait early and returns kCancelled or nothing.
// - A notification with an id is held by the source from Receive until
//   Acknowledge (done: deleted from its queue) or Release (given back: the
//   queue delivers it again once its visibility timeout ends). While held it
//   is kept from being delivered again (SQS: its visibility is extended), so
//   a long batch does not see it twice. A notification without an id (inotify)
//   needs neither.
// Not thread-safe: one caller at a time (an implementation may run its own
// thread, as it documents).
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"

namespace floe::ingest {

struct FileEvent {
  enum class Kind {
    kComplete,  // written and closed, moved in, or an S3 object created (or touched: read it to see)
    kFound,     // seen in a directory that appeared (it may still be written: it settles like a listed file)
    kRemoved,   // deleted: nothing for floe to do
  };
  Kind kind = Kind::kComplete;
  std::string path;
  std::string sequencer;  // S3: orders the events of one key (aws/sqs CompareSequencers); "" when not given
};

struct Notification {
  std::string id;  // "" when the source needs no acknowledgement
  bool test_event = false;
  std::vector<FileEvent> events;
};

struct NotificationBatch {
  std::vector<Notification> notifications;
  std::vector<std::string> unreadable;  // one line per notification that could not be read
  std::vector<std::string> warnings;    // the source's own (a watch that could not be added, ...)
  bool lost = false;
  bool empty() const { return notifications.empty() && unreadable.empty() && warnings.empty() && !lost; }
};

class NotificationSource {
 public:
  virtual ~NotificationSource() = default;
  virtual Result<NotificationBatch> Receive(int64_t wait_ms) = 0;
  // Error: some could not be acknowledged (named); the others were.
  virtual Status Acknowledge(const std::vector<std::string>& ids) {
    (void)ids;
    return Status::OK();
  }
  virtual void Release(const std::vector<std::string>& ids) { (void)ids; }
  virtual void SetStopFlag(const std::atomic<bool>* stop) { (void)stop; }
  // The longest single wait Receive should be asked for (SQS: the long-poll
  // wait; inotify: short, so the caller's loop stays lively).
  virtual int64_t max_wait_ms() const = 0;
  // "SQS queue https://...", "inotify on /landing", for messages.
  virtual std::string name() const = 0;
};

}  // namespace floe::ingest
