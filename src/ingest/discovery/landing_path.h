// Landing-zone path helpers shared by the sources.
//
// Contract: ListingRoot turns a source URI into the prefix that FileIO::List
// puts in front of the paths it returns (local: the plain path; S3: the
// s3:// URI), without trailing '/'. RelativeTo gives the part of a listed
// path below that root, or nullopt when the path is not below it.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace floe::ingest {

std::string ListingRoot(const std::string& uri);
bool IsObjectStoreUri(const std::string& uri);
// root + "/" + child, for a root as ListingRoot returns it.
std::string JoinUnder(const std::string& root, const std::string& child);
std::optional<std::string_view> RelativeTo(std::string_view root, std::string_view listed_path);

}  // namespace floe::ingest
