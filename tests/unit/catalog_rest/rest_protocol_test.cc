// The REST wire conventions: percent-encoding, the %1F namespace separator,
// the names floe serve accepts, and how error answers become Status.
#include "catalog/rest/rest_protocol.h"

#include <gtest/gtest.h>

#include "catalog/rest/rest_options.h"
#include "test_util.h"

namespace floe::catalog::rest {
namespace {

TEST(RestProtocolTest, PercentEncodingRoundTrips) {
  EXPECT_EQ(PercentEncode("a b/c~d.e_f-g"), "a%20b%2Fc~d.e_f-g");
  EXPECT_EQ(PercentEncode("\x1f\xc3\xa9"), "%1F%C3%A9");
  ASSERT_OK_AND_ASSIGN(std::string decoded, PercentDecode("a%20b%2fc+%1F"));
  EXPECT_EQ(decoded, "a b/c+\x1f");
  EXPECT_FALSE(PercentDecode("abc%2").ok());
  EXPECT_FALSE(PercentDecode("abc%").ok());
  EXPECT_FALSE(PercentDecode("%zz").ok());
}

TEST(RestProtocolTest, NamespaceSeparator) {
  EXPECT_EQ(NamespaceToPathSegment({"accounting", "tax year"}), "accounting%1Ftax%20year");
  EXPECT_EQ(NamespaceToDecoded({"a", "b"}),
            "a\x1f"
            "b");
  ASSERT_OK_AND_ASSIGN(Namespace ns, NamespaceFromDecoded("a\x1f"
                                                          "b\x1f"
                                                          "c"));
  EXPECT_EQ(ns, (Namespace{"a", "b", "c"}));
  EXPECT_FALSE(NamespaceFromDecoded("a\x1f\x1f"
                                    "b")
                   .ok());  // empty level
  EXPECT_FALSE(NamespaceFromDecoded("").ok());
}

TEST(RestProtocolTest, ValidateNameRejectsTraversalAndControlCharacters) {
  EXPECT_OK(ValidateName("events_2024", "table name"));
  EXPECT_OK(ValidateName("caf\xc3\xa9 table", "table name"));
  const std::vector<std::string> bad_names = {"",     ".",    "..",    "a/b",
                                              "a\\b", "a\nb", "a\x7f", std::string(256, 'x')};
  for (const std::string& bad : bad_names) {
    Status status = ValidateName(bad, "table name");
    EXPECT_EQ(status.kind(), ErrorKind::kInvalidArgument) << PercentEncode(bad);
  }
  EXPECT_NE(ValidateName("../x", "table name").message().find("table name"), std::string::npos);
}

TEST(RestProtocolTest, TableIdentifierJson) {
  auto json = TableIdentifierToJson({{"a", "b"}, "t"});
  EXPECT_EQ(json.dump(), R"({"namespace":["a","b"],"name":"t"})");
  ASSERT_OK_AND_ASSIGN(TableIdentifier id, TableIdentifierFromJson(iceberg::Json::parse(json.dump())));
  EXPECT_EQ(id, (TableIdentifier{{"a", "b"}, "t"}));
  EXPECT_FALSE(TableIdentifierFromJson(iceberg::Json::parse(R"({"namespace":"a","name":"t"})")).ok());
  EXPECT_FALSE(TableIdentifierFromJson(iceberg::Json::parse(R"({"namespace":["a"]})")).ok());
}

// A server's answer is untrusted: a level or name floe cannot name would
// print and resolve as another table ("a.b" as two levels), so parsing
// refuses it and says which part was wrong (found by rest_catalog_fuzz on CI;
// tests/regress/rest_catalog/).
TEST(RestProtocolTest, NamesFloeCannotRepresentAreRefusedWhenParsed) {
  auto dotted = NamespaceFromJson(iceberg::Json::parse(R"(["ok","a.b"])"), "namespaces entry");
  ASSERT_FALSE(dotted.ok());
  EXPECT_NE(dotted.status().message().find("namespaces entry level 'a.b' contains '.'"), std::string::npos)
      << dotted.status().message();
  EXPECT_FALSE(NamespaceFromJson(iceberg::Json::parse(R"([""])"), "namespace").ok());
  EXPECT_FALSE(NamespaceFromJson(iceberg::Json::parse(R"(["a\u0000"])"), "namespace").ok());
  auto name = TableIdentifierFromJson(iceberg::Json::parse(R"({"namespace":["db"],"name":"x/y"})"));
  ASSERT_FALSE(name.ok());
  EXPECT_NE(name.status().message().find("'name' 'x/y' contains a path separator"), std::string::npos)
      << name.status().message();
  EXPECT_OK(NamespaceFromJson(iceberg::Json::parse(R"([])"), "parent").status());
}

TEST(RestProtocolTest, ErrorMappingFollowsTheSpec) {
  const std::string body = ErrorJson(409, "CommitFailedException", "requirement failed").dump();
  Status commit = ErrorFromResponse(409, body, RequestKind::kCommit, "committing db.t");
  EXPECT_EQ(commit.kind(), ErrorKind::kCommitFailed);
  EXPECT_TRUE(commit.retryable());
  EXPECT_NE(commit.message().find("requirement failed"), std::string::npos);
  EXPECT_NE(commit.message().find("committing db.t"), std::string::npos);
  EXPECT_EQ(ErrorFromResponse(409, body, RequestKind::kCreate, "x").kind(), ErrorKind::kAlreadyExists);
  EXPECT_EQ(ErrorFromResponse(404, "", RequestKind::kRead, "x").kind(), ErrorKind::kNotFound);
  EXPECT_EQ(ErrorFromResponse(406, "", RequestKind::kRead, "x").kind(), ErrorKind::kNotSupported);
  Status bad = ErrorFromResponse(400, ErrorJson(400, "BadRequestException", "schema: bad type").dump(),
                                 RequestKind::kCreate, "creating db.t");
  EXPECT_EQ(bad.kind(), ErrorKind::kInvalidArgument);
  EXPECT_NE(bad.message().find("schema: bad type"), std::string::npos);
  Status auth = ErrorFromResponse(401, "", RequestKind::kRead, "x");
  EXPECT_EQ(auth.kind(), ErrorKind::kInvalidArgument);
  EXPECT_NE(auth.message().find("authentication failed"), std::string::npos);
  EXPECT_NE(ErrorFromResponse(403, "", RequestKind::kRead, "x").message().find("not authorized"),
            std::string::npos);
  for (long code : {500L, 502L, 503L, 504L}) {
    EXPECT_EQ(ErrorFromResponse(code, "", RequestKind::kCommit, "x").kind(), ErrorKind::kCommitStateUnknown)
        << code;
  }
  EXPECT_EQ(ErrorFromResponse(500, "", RequestKind::kRead, "x").kind(), ErrorKind::kIOError);
  EXPECT_TRUE(ErrorFromResponse(503, "", RequestKind::kRead, "x").retryable());
  // An OAuth2 error body.
  Status oauth = ErrorFromResponse(401, R"({"error":"invalid_client","error_description":"bad secret"})",
                                   RequestKind::kRead, "token");
  EXPECT_NE(oauth.message().find("invalid_client"), std::string::npos);
  EXPECT_NE(oauth.message().find("bad secret"), std::string::npos);
  // A non-JSON body is quoted, bounded.
  Status html = ErrorFromResponse(502, std::string(10000, '<'), RequestKind::kRead, "x");
  EXPECT_LT(html.message().size(), 2200u);
}

TEST(RestProtocolTest, CatalogUris) {
  EXPECT_TRUE(IsRestCatalogUri("rest+http://127.0.0.1:8181"));
  EXPECT_TRUE(IsRestCatalogUri("rest+https://glue.us-east-1.amazonaws.com/iceberg"));
  EXPECT_FALSE(IsRestCatalogUri("sqlite:///x.db"));
  ASSERT_OK_AND_ASSIGN(std::string uri,
                       ParseRestCatalogUri("rest+https://glue.us-east-1.amazonaws.com/iceberg/"));
  EXPECT_EQ(uri, "https://glue.us-east-1.amazonaws.com/iceberg");
  EXPECT_FALSE(ParseRestCatalogUri("rest+ftp://x").ok());
  EXPECT_FALSE(ParseRestCatalogUri("http://user:pw@host/").ok());
  EXPECT_FALSE(ParseRestCatalogUri("http:///path").ok());
  EXPECT_FALSE(ParseRestCatalogUri("http://host/a b").ok());
}

}  // namespace
}  // namespace floe::catalog::rest
