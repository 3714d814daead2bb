// RestCatalogService::Admit, what a request's head alone decides: a HEAD
// request's answer carries no body whatever refused it (the fuzz target
// rest_request_fuzz found a refused HEAD answered with a JSON error body).
#include <gtest/gtest.h>

#include "catalog/rest_server/rest_catalog_service.h"
#include "catalog/sql/sql_metastore.h"
#include "io/file_io.h"
#include "test_util.h"

namespace floe::catalog::rest {
namespace {

std::unique_ptr<RestCatalogService> MakeService(RestServiceOptions options) {
  auto metastore = SqlMetastore::Open("sqlite::memory:", "admission");
  EXPECT_TRUE(metastore.ok());
  auto service =
      RestCatalogService::Create(std::shared_ptr<Metastore>(std::move(*metastore)), MakeLocalFileIO(),
                                 "/tmp/floe-admission-test-warehouse", std::move(options));
  EXPECT_TRUE(service.ok()) << service.status().ToString();
  return std::move(*service);
}

TEST(RestAdmissionTest, ARefusedHeadRequestIsAnsweredWithoutABody) {
  // Without a token only loopback Host names are served: another is refused by the head alone.
  auto open = MakeService({});
  const ServiceRequest bad_host{"HEAD", "/v1/namespaces/db", {{"host", "127.0,0.1"}}, ""};
  auto refused = open->Admit(bad_host);
  ASSERT_TRUE(refused.has_value());
  EXPECT_EQ(refused->status, 400);
  EXPECT_TRUE(refused->body.empty()) << refused->body;
  const ServiceRequest get{"GET", "/v1/namespaces/db", {{"host", "127.0,0.1"}}, ""};
  refused = open->Admit(get);
  ASSERT_TRUE(refused.has_value());
  EXPECT_FALSE(refused->body.empty()) << "a GET keeps its error body";
  // With a token, a HEAD without it.
  RestServiceOptions options;
  options.token = "admission-token-0123456789";
  auto service = MakeService(options);
  const ServiceRequest no_token{"HEAD", "/v1/namespaces/db", {{"host", "127.0.0.1"}}, ""};
  refused = service->Admit(no_token);
  ASSERT_TRUE(refused.has_value());
  EXPECT_EQ(refused->status, 401);
  EXPECT_TRUE(refused->body.empty()) << refused->body;
}

}  // namespace
}  // namespace floe::catalog::rest
