// RedactUri and RedactSecrets: passwords in user information, secret query
// and libpq key=value parameters, and echoed secrets never reach a message.
#include "common/redaction.h"

#include <gtest/gtest.h>

namespace floe {
namespace {

TEST(Redaction, UriPasswords) {
  EXPECT_EQ(RedactUri("postgresql://floe:hunter2@localhost:5432/cat"),
            "postgresql://floe:***@localhost:5432/cat");
  EXPECT_EQ(RedactUri("postgresql://floe:p@ss@db/cat"), "postgresql://floe:***@db/cat");
  EXPECT_EQ(RedactUri("postgresql://floe@db/cat"), "postgresql://floe@db/cat");
  EXPECT_EQ(RedactUri("http://key:secret@127.0.0.1:9000"), "http://key:***@127.0.0.1:9000");
  EXPECT_EQ(RedactUri("postgresql://db/cat?user=u&password=hunter2&sslmode=require"),
            "postgresql://db/cat?user=u&password=***&sslmode=require");
  EXPECT_EQ(RedactUri("https://h/p?X-Amz-Signature=abc;Token=t#frag"),
            "https://h/p?X-Amz-Signature=***;Token=***#frag");
  EXPECT_EQ(RedactUri("host=db user=u password=hunter2 dbname=c"), "host=db user=u password=*** dbname=c");
  EXPECT_EQ(RedactUri("sqlite:///srv/catalog.db"), "sqlite:///srv/catalog.db");
  EXPECT_EQ(RedactUri("s3://bucket/a=b/c"), "s3://bucket/a=b/c");
  EXPECT_EQ(RedactUri(""), "");
  for (const char* uri :
       {"postgresql://u:hunter2@h/d?password=hunter2", "http://a:hunter2@b?secret=hunter2"}) {
    EXPECT_EQ(RedactUri(uri).find("hunter2"), std::string::npos) << uri;
  }
}

TEST(Redaction, EchoedSecrets) {
  EXPECT_EQ(RedactSecrets("bad secret s3cr3t-value for s3cr3t-value", {"s3cr3t-value", ""}),
            "bad secret *** for ***");
  EXPECT_EQ(RedactSecrets("a b c", {"b"}), "a b c") << "too short to mask without masking words";
  EXPECT_EQ(RedactSecrets("line\x1b[31mred\r", {}), "line?[31mred?");
}

}  // namespace
}  // namespace floe
