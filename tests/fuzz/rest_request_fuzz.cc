// Fuzzes `floe serve` from the bytes on the wire to the catalog: the input
// is a stream of pipelined HTTP requests, read by HttpRequestParser (in two
// pieces, split where the first byte says, as a socket might deliver them)
// and answered by RestCatalogService over a fresh in-memory SQLite catalog
// and an empty warehouse, so routing, JSON bodies, requirements, updates,
// staged creates, transactions, paging, the Host/Origin/token checks and
// purges all see arbitrary input. Every answer must be a status from 100 to
// 599 with a JSON body (an IcebergErrorResponse or OAuth error for >= 400);
// anything else, a crash, hang or sanitizer report fails.
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>

#include "catalog/rest_server/rest_catalog_service.h"
#include "catalog/sql/sql_metastore.h"
#include "http_server/http_request_parser.h"
#include "iceberg/spec/json_util.h"
#include "io/file_io.h"

namespace {

using floe::catalog::rest::RestCatalogService;
using floe::catalog::rest::ServiceRequest;
using floe::catalog::rest::ServiceResponse;
using floe::http_server::HttpParseLimits;
using floe::http_server::HttpRequestParser;

const std::filesystem::path& Root() {
  static const std::filesystem::path root = [] {
    std::string templ = (std::filesystem::temp_directory_path() / "floe-rest-fuzz-XXXXXX").string();
    if (::mkdtemp(templ.data()) == nullptr) std::abort();
    return std::filesystem::path(templ);
  }();
  return root;
}

void CheckAnswer(const ServiceResponse& response, const ServiceRequest& request) {
  if (response.status < 100 || response.status > 599) std::abort();
  if (request.method == "HEAD" || response.status == 204) {
    if (!response.body.empty()) std::abort();
    return;
  }
  auto json = floe::iceberg::ParseJson(response.body);
  if (!json.ok() || !json->is_object()) std::abort();
  if (response.status >= 400 && !json->contains("error")) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::filesystem::path warehouse = Root() / "wh";
  std::error_code ec;
  std::filesystem::remove_all(warehouse, ec);
  auto metastore = floe::catalog::SqlMetastore::Open("sqlite::memory:", "fuzz");
  if (!metastore.ok()) std::abort();
  floe::catalog::rest::RestServiceOptions options;
  if (data[0] & 1) options.token = "fuzz-token-0123456789";
  if (data[0] & 2) options.cors_origins = {"http://app.example"};
  auto service = RestCatalogService::Create(std::shared_ptr<floe::catalog::Metastore>(std::move(*metastore)),
                                            floe::MakeLocalFileIO(), warehouse.string(), options);
  if (!service.ok()) std::abort();
  std::string_view wire(reinterpret_cast<const char*>(data) + 1, size - 1);
  const size_t split = wire.empty() ? 0 : (data[0] >> 2) % (wire.size() + 1);
  HttpParseLimits limits;
  limits.max_body_bytes = 1 << 20;
  std::string buffered;
  size_t delivered = 0;
  for (int requests = 0; requests < 64; ++requests) {
    HttpRequestParser parser(limits);
    bool admitted = false;
    while (true) {
      if (buffered.empty() && delivered < wire.size()) {
        // Two deliveries: up to the split point, then the rest.
        const size_t until = delivered < split ? split : wire.size();
        buffered.assign(wire.substr(delivered, until - delivered));
        delivered = until;
      }
      const size_t used = parser.Feed(buffered);
      buffered.erase(0, used);
      if (parser.state() == HttpRequestParser::State::kError) {
        if (parser.error_status() < 400 || parser.error_status() > 599) std::abort();
        return 0;
      }
      if (!admitted && parser.state() != HttpRequestParser::State::kHead) {
        admitted = true;
        ServiceRequest head{parser.head().method, parser.head().target, parser.head().headers, ""};
        if (auto refused = (*service)->Admit(head)) {
          CheckAnswer(*refused, head);
          if (parser.state() != HttpRequestParser::State::kComplete) return 0;  // its body is never read
          break;
        }
      }
      if (parser.state() == HttpRequestParser::State::kComplete) {
        ServiceRequest request{parser.head().method, parser.head().target, parser.head().headers,
                               std::move(parser.body())};
        CheckAnswer((*service)->HandleAdmitted(request), request);
        break;
      }
      if (used == 0 && buffered.empty() && delivered >= wire.size()) return 0;  // input ends mid-request
    }
    if (buffered.empty() && delivered >= wire.size()) return 0;
  }
  return 0;
}
