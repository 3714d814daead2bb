// Glob: the small shell-style pattern matcher sources use to filter table
// names and paths, independent of the C library's locale-dependent fnmatch.
//
// Contract: `*` matches any run of characters, `?` one character, `[abc]`,
// `[a-z]`, `[!a-z]` / `[^a-z]` one character of (or not of) a set (a `]`
// right after `[` or `[!` is a member), `\x` the character x. A `[` without
// a closing `]` is a literal `[`. Matching is byte-wise and case-sensitive.
// In path mode '/' separates folders: `*`, `?` and sets never match '/',
// `**` matches across folders, and `**/` also matches no folder at all (so
// `**/*.parquet` matches "a.parquet" and "x/y/a.parquet"). Matching takes
// O(pattern length x text length) time and never recurses.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace floe::ingest {

enum class GlobMode {
  kName,  // '/' is an ordinary character
  kPath,  // '/' separates folders
};

bool GlobMatch(std::string_view pattern, std::string_view text, GlobMode mode);

// True when `text` passes the filters: it matches one of `include` (or
// `include` is empty) and none of `exclude`.
bool GlobFilterAccepts(const std::vector<std::string>& include, const std::vector<std::string>& exclude,
                       std::string_view text, GlobMode mode);

}  // namespace floe::ingest
