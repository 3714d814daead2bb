// A small, strict XML reader for S3 response bodies (ListObjectsV2, errors,
// multipart upload ids): it builds an element tree, not a general XML DOM.
//
// Contract: element names lose their namespace prefix ("s3:Key" -> "Key");
// attributes (xmlns=...) are checked for syntax and dropped; character data is
// entity-decoded (&amp; &lt; &gt; &quot; &apos; &#N; &#xN;) and CDATA is kept
// verbatim. Malformed input (mismatched tags, unknown entities, a DOCTYPE,
// nesting deeper than kMaxXmlDepth, text after the root) is a Corruption error
// naming the byte offset; the parser never reads past the input and its
// recursion is bounded by the depth limit.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace floe::s3 {

inline constexpr int kMaxXmlDepth = 32;

struct XmlElement {
  std::string name;
  std::string text;  // the element's own character data, decoded
  std::vector<XmlElement> children;

  // First child with this name, or nullptr.
  const XmlElement* Child(std::string_view child_name) const;
  // Text of the first child with this name, or "" when absent.
  std::string ChildText(std::string_view child_name) const;
};

Result<XmlElement> ParseXml(std::string_view text);

// Escapes & < > " ' for element content.
std::string XmlEscape(std::string_view text);

}  // namespace floe::s3
