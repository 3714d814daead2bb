// Settings of the Glue Data Catalog API catalog (catalog/glue/glue_catalog.h),
// and its URI form.
//
// Contract: `catalog_id` is the AWS account id that owns the Data Catalog
// (Iceberg's glue.id; empty: the caller's own account); `region` and
// `endpoint` override the AWS chains (region: AWS_REGION, profile, ...;
// endpoint: AWS_ENDPOINT_URL_GLUE, AWS_ENDPOINT_URL, profile, the regional
// AWS endpoint). ParseGlueCatalogUri reads
// "glue://[<catalog-id>][?region=<r>][&endpoint=<percent-encoded url>][&skip_archive=true|false]".
// Plain values: thread-compatible.
#pragma once

#include <string>

#include "aws/retry.h"
#include "common/status.h"

namespace floe::catalog::glue {

struct GlueCatalogOptions {
  std::string catalog_id;
  std::string region;
  std::string endpoint;
  // UpdateTable's SkipArchive: no Glue table version is archived per commit
  // (Iceberg's glue.skip-archive, default true; Glue keeps a limited number
  // of versions per table and floe commits often).
  bool skip_archive = true;
  aws::RetryPolicy retry;
};

bool IsGlueCatalogUri(const std::string& uri);
// Fills `options` from `uri`; a value that contradicts one already set is
// InvalidArgument naming both.
Status ParseGlueCatalogUri(const std::string& uri, GlueCatalogOptions* options);

}  // namespace floe::catalog::glue
