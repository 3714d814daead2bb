// ParseGlueCatalogUri: what a glue:// URI sets, and that its errors keep
// secrets a user put in the URI out of the message (common/redaction.h).
#include "catalog/glue/glue_options.h"

#include <gtest/gtest.h>

namespace floe::catalog::glue {
namespace {

TEST(GlueOptionsTest, UriSetsCatalogRegionAndEndpoint) {
  GlueCatalogOptions options;
  ASSERT_TRUE(ParseGlueCatalogUri(
                  "glue://123456789012?region=eu-west-1&endpoint=http%3A%2F%2F127.0.0.1%3A5000", &options)
                  .ok());
  EXPECT_EQ(options.catalog_id, "123456789012");
  EXPECT_EQ(options.region, "eu-west-1");
  EXPECT_EQ(options.endpoint, "http://127.0.0.1:5000");
}

TEST(GlueOptionsTest, ErrorsDoNotEchoSecretParameters) {
  GlueCatalogOptions options;
  Status unknown =
      ParseGlueCatalogUri("glue://123456789012?region=eu-west-1&secret=hunter2hunter2", &options);
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.message().find("hunter2hunter2"), std::string::npos) << unknown.message();
  EXPECT_NE(unknown.message().find("unknown parameter 'secret'"), std::string::npos) << unknown.message();

  GlueCatalogOptions other;
  Status bad_value =
      ParseGlueCatalogUri("glue://123456789012?password=hunter2hunter2&skip_archive=maybe", &other);
  ASSERT_FALSE(bad_value.ok());
  EXPECT_EQ(bad_value.message().find("hunter2hunter2"), std::string::npos) << bad_value.message();
}

}  // namespace
}  // namespace floe::catalog::glue
