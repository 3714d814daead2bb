// Fuzzes the REST catalog client's parsing of server answers, which come
// from a server floe does not control. Byte 0 picks the answer, the rest is
// its body:
//   0 LoadTableResult (metadata-location, metadata, config)
//   1 CatalogConfig (defaults, overrides)
//   2 a ListNamespaces page, every entry parsed as a namespace
//   3 a ListTables page, every entry parsed as a table identifier
//   4 an error answer; byte 1 picks the HTTP status (100-611), byte 2 the
//     kind of request
//   5 a {namespace} path segment: percent-decoded, then split into levels
// Beyond "no crash, no hang": table metadata that parses writes back and
// reads again (v2/v3), every namespace level and table name passes
// ValidateName, and an error answer is never OK.
#include <cstdint>
#include <string>
#include <string_view>

#include "catalog/rest/rest_catalog.h"
#include "catalog/rest/rest_protocol.h"
#include "fuzz_checks.h"
#include "iceberg/spec/table_metadata.h"

namespace {

using namespace floe;
using namespace floe::catalog;
using namespace floe::catalog::rest;

void CheckNamespace(const Namespace& ns) {
  for (const std::string& level : ns) CHECK_PROPERTY(ValidateName(level, "level").ok());
}

void LoadTable(const std::string& body) {
  std::map<std::string, std::string> config;
  auto loaded = LoadedTableFromJson(body, "loading table fuzz", &config);
  if (!loaded.ok() || loaded->metadata.format_version == 1) return;
  auto written = iceberg::TableMetadataToJson(loaded->metadata);
  if (!written.ok()) return;
  CHECK_PROPERTY(iceberg::TableMetadataFromJson(*written, "rewritten").ok());
}

void ListPage(const std::string& body, bool namespaces) {
  auto next = ListPageFromJson(body, namespaces ? "namespaces" : "identifiers", "listing fuzz",
                               [namespaces](const iceberg::Json& entry) -> Status {
                                 if (namespaces) {
                                   FLOE_ASSIGN_OR_RETURN(Namespace ns, NamespaceFromJson(entry, "entry"));
                                   CheckNamespace(ns);
                                 } else {
                                   FLOE_ASSIGN_OR_RETURN(TableIdentifier id, TableIdentifierFromJson(entry));
                                   CheckNamespace(id.ns);
                                   CHECK_PROPERTY(ValidateName(id.name, "table").ok());
                                 }
                                 return Status::OK();
                               });
  (void)next;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const uint8_t selector = data[0];
  switch (selector % 6) {
    case 0: LoadTable(std::string(reinterpret_cast<const char*>(data) + 1, size - 1)); break;
    case 1:
      (void)CatalogConfigFromJson(std::string(reinterpret_cast<const char*>(data) + 1, size - 1),
                                  "config fuzz");
      break;
    case 2: ListPage(std::string(reinterpret_cast<const char*>(data) + 1, size - 1), true); break;
    case 3: ListPage(std::string(reinterpret_cast<const char*>(data) + 1, size - 1), false); break;
    case 4: {
      if (size < 3) return 0;
      const long status = 100 + (data[1] * 2 + (data[2] & 1)) % 512;
      const auto kind = static_cast<RequestKind>((data[2] >> 1) % 4);
      const std::string_view body(reinterpret_cast<const char*>(data) + 3, size - 3);
      CHECK_PROPERTY(!ErrorFromResponse(status, body, kind, "fuzz operation").ok());
      break;
    }
    case 5: {
      auto decoded = PercentDecode(std::string_view(reinterpret_cast<const char*>(data) + 1, size - 1));
      if (!decoded.ok()) return 0;
      auto ns = NamespaceFromDecoded(*decoded);
      if (ns.ok()) CheckNamespace(*ns);
      break;
    }
  }
  return 0;
}
