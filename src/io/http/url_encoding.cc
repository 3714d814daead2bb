#include "io/http/url_encoding.h"

#include "common/strings.h"

namespace floe::http {

std::string PercentEncode(std::string_view text, bool keep_slash) {
  return floe::PercentEncode(text, keep_slash ? "/" : "");
}

Result<std::string> PercentDecode(std::string_view text, bool plus_is_space) {
  size_t offset = 0;
  std::optional<std::string> decoded = floe::PercentDecode(text, plus_is_space, &offset);
  if (decoded) return std::move(*decoded);
  return Status::InvalidArgument((offset + 2 >= text.size() ? "truncated" : "malformed") +
                                 std::string(" percent escape at offset ") + std::to_string(offset));
}

}  // namespace floe::http
