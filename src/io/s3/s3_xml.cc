// Recursive-descent XML reader; recursion depth is bounded by kMaxXmlDepth.
#include "io/s3/s3_xml.h"

#include <cctype>
#include <cstdint>

#include "common/utf8.h"

namespace floe::s3 {
namespace {

bool IsNameChar(char c) {
  unsigned char u = static_cast<unsigned char>(c);
  return std::isalnum(u) != 0 || c == '_' || c == '-' || c == '.' || c == ':' || u >= 0x80;
}

bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  Result<XmlElement> ParseDocument() {
    FLOE_RETURN_IF_ERROR(SkipMisc(/*allow_doctype=*/false));
    if (!Peek('<')) return Error("expected the root element");
    XmlElement root;
    FLOE_RETURN_IF_ERROR(ParseElement(&root, 1));
    FLOE_RETURN_IF_ERROR(SkipMisc(false));
    if (pos_ != text_.size()) return Error("unexpected content after the root element");
    return root;
  }

 private:
  Status Error(const std::string& what) const {
    return Status::Corruption("XML: " + what + " at byte " + std::to_string(pos_));
  }
  bool Peek(char c) const { return pos_ < text_.size() && text_[pos_] == c; }
  bool StartsWith(std::string_view s) const { return text_.substr(pos_, s.size()) == s; }
  void SkipSpace() {
    while (pos_ < text_.size() && IsSpace(text_[pos_])) ++pos_;
  }

  // Skips until (and past) `terminator`; an error if it never comes.
  Status SkipPast(std::string_view terminator, const char* what) {
    size_t end = text_.find(terminator, pos_);
    if (end == std::string_view::npos) return Error(std::string("unterminated ") + what);
    pos_ = end + terminator.size();
    return Status::OK();
  }

  // Whitespace, comments and processing instructions around the root.
  Status SkipMisc(bool allow_doctype) {
    for (;;) {
      SkipSpace();
      if (StartsWith("<?")) {
        FLOE_RETURN_IF_ERROR(SkipPast("?>", "processing instruction"));
      } else if (StartsWith("<!--")) {
        FLOE_RETURN_IF_ERROR(SkipPast("-->", "comment"));
      } else if (StartsWith("<!")) {
        if (!allow_doctype) return Error("DOCTYPE and other declarations are not accepted");
      } else {
        return Status::OK();
      }
    }
  }

  Result<std::string> ParseName() {
    size_t start = pos_;
    while (pos_ < text_.size() && IsNameChar(text_[pos_])) ++pos_;
    if (pos_ == start) return Error("expected a name");
    return std::string(text_.substr(start, pos_ - start));
  }

  Status DecodeEntity(std::string* out) {
    size_t semi = text_.find(';', pos_);
    if (semi == std::string_view::npos || semi - pos_ > 12) return Error("unterminated entity");
    std::string_view entity = text_.substr(pos_ + 1, semi - pos_ - 1);
    if (entity == "amp") {
      out->push_back('&');
    } else if (entity == "lt") {
      out->push_back('<');
    } else if (entity == "gt") {
      out->push_back('>');
    } else if (entity == "quot") {
      out->push_back('"');
    } else if (entity == "apos") {
      out->push_back('\'');
    } else if (entity.size() >= 2 && entity[0] == '#') {
      bool hex = entity[1] == 'x' || entity[1] == 'X';
      std::string_view digits = entity.substr(hex ? 2 : 1);
      if (digits.empty()) return Error("empty character reference");
      uint32_t cp = 0;
      for (char c : digits) {
        int d;
        if (c >= '0' && c <= '9') {
          d = c - '0';
        } else if (hex && c >= 'a' && c <= 'f') {
          d = c - 'a' + 10;
        } else if (hex && c >= 'A' && c <= 'F') {
          d = c - 'A' + 10;
        } else {
          return Error("bad character reference");
        }
        cp = cp * (hex ? 16 : 10) + static_cast<uint32_t>(d);
        if (cp > 0x10FFFF) return Error("character reference out of range");
      }
      if (cp == 0 || (cp >= 0xD800 && cp <= 0xDFFF)) return Error("invalid character reference");
      AppendUtf8(cp, out);
    } else {
      return Error("unknown entity '&" + std::string(entity) + ";'");
    }
    pos_ = semi + 1;
    return Status::OK();
  }

  Status ParseAttributes() {
    for (;;) {
      SkipSpace();
      if (Peek('>') || StartsWith("/>")) return Status::OK();
      FLOE_ASSIGN_OR_RETURN(std::string name, ParseName());
      SkipSpace();
      if (!Peek('=')) return Error("expected '=' after attribute " + name);
      ++pos_;
      SkipSpace();
      if (!Peek('"') && !Peek('\'')) return Error("expected a quoted value for attribute " + name);
      char quote = text_[pos_++];
      size_t end = text_.find(quote, pos_);
      if (end == std::string_view::npos) return Error("unterminated attribute " + name);
      if (text_.substr(pos_, end - pos_).find('<') != std::string_view::npos) {
        return Error("'<' inside attribute " + name);
      }
      pos_ = end + 1;
    }
  }

  Status ParseElement(XmlElement* element, int depth) {
    if (depth > kMaxXmlDepth) return Error("elements nested deeper than " + std::to_string(kMaxXmlDepth));
    ++pos_;  // '<'
    FLOE_ASSIGN_OR_RETURN(std::string qualified, ParseName());
    size_t colon = qualified.rfind(':');
    element->name = colon == std::string::npos ? qualified : qualified.substr(colon + 1);
    FLOE_RETURN_IF_ERROR(ParseAttributes());
    if (StartsWith("/>")) {
      pos_ += 2;
      return Status::OK();
    }
    ++pos_;  // '>'
    for (;;) {
      if (pos_ >= text_.size()) return Error("missing </" + qualified + ">");
      char c = text_[pos_];
      if (c == '&') {
        FLOE_RETURN_IF_ERROR(DecodeEntity(&element->text));
      } else if (c != '<') {
        element->text.push_back(c);
        ++pos_;
      } else if (StartsWith("</")) {
        pos_ += 2;
        FLOE_ASSIGN_OR_RETURN(std::string closing, ParseName());
        if (closing != qualified) return Error("</" + closing + "> closes <" + qualified + ">");
        SkipSpace();
        if (!Peek('>')) return Error("expected '>' after </" + closing);
        ++pos_;
        return Status::OK();
      } else if (StartsWith("<!--")) {
        FLOE_RETURN_IF_ERROR(SkipPast("-->", "comment"));
      } else if (StartsWith("<![CDATA[")) {
        pos_ += 9;
        size_t end = text_.find("]]>", pos_);
        if (end == std::string_view::npos) return Error("unterminated CDATA section");
        element->text.append(text_.substr(pos_, end - pos_));
        pos_ = end + 3;
      } else if (StartsWith("<?")) {
        FLOE_RETURN_IF_ERROR(SkipPast("?>", "processing instruction"));
      } else if (StartsWith("<!")) {
        return Error("declaration inside an element");
      } else {
        element->children.emplace_back();
        FLOE_RETURN_IF_ERROR(ParseElement(&element->children.back(), depth + 1));
      }
    }
  }

  std::string_view text_;
  size_t pos_ = 0;
};

}  // namespace

const XmlElement* XmlElement::Child(std::string_view child_name) const {
  for (const XmlElement& child : children) {
    if (child.name == child_name) return &child;
  }
  return nullptr;
}

std::string XmlElement::ChildText(std::string_view child_name) const {
  const XmlElement* child = Child(child_name);
  return child ? child->text : std::string();
}

Result<XmlElement> ParseXml(std::string_view text) {
  return Parser(text).ParseDocument();
}

std::string XmlEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out.push_back(c);
    }
  }
  return out;
}

}  // namespace floe::s3
