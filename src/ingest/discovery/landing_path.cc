#include "ingest/discovery/landing_path.h"

#include "io/file_io.h"

namespace floe::ingest {

bool IsObjectStoreUri(const std::string& uri) {
  return uri.rfind("s3://", 0) == 0 || uri.rfind("s3a://", 0) == 0;
}

std::string ListingRoot(const std::string& uri) {
  std::string root;
  if (uri.rfind("s3a://", 0) == 0) {
    root = "s3://" + uri.substr(6);  // the S3 FileIO lists as s3://
  } else if (IsObjectStoreUri(uri)) {
    root = uri;
  } else {
    root = LocalPathOf(uri);
  }
  while (root.size() > 1 && root.back() == '/') root.pop_back();
  return root;
}

std::string JoinUnder(const std::string& root, const std::string& child) {
  if (!root.empty() && root.back() == '/') return root + child;
  return root + "/" + child;
}

std::optional<std::string_view> RelativeTo(std::string_view root, std::string_view listed_path) {
  if (root == "/") root = "";
  if (listed_path.size() <= root.size() + 1) return std::nullopt;
  if (listed_path.substr(0, root.size()) != root || listed_path[root.size()] != '/') return std::nullopt;
  return listed_path.substr(root.size() + 1);
}

}  // namespace floe::ingest
