#include "catalog/metastore.h"

#include <tuple>

#include "common/strings.h"

namespace floe::catalog {

std::string NamespaceToString(const Namespace& ns) {
  std::string out;
  for (size_t i = 0; i < ns.size(); ++i) {
    if (i) out += '.';
    out += ns[i];
  }
  return out;
}

Status ValidateName(std::string_view name, std::string_view what) {
  const std::string label(what);
  if (name.empty()) return Status::InvalidArgument(label + " must not be empty");
  if (name.size() > 255) return Status::InvalidArgument(label + " is longer than 255 bytes");
  std::string shown;  // control characters escaped, so the message itself stays printable
  bool control = false;
  for (char ch : name) {
    const auto c = static_cast<unsigned char>(ch);
    if (c < 0x20 || c == 0x7f) {
      shown += "\\x";
      shown += kLowerHexDigits[c >> 4];
      shown += kLowerHexDigits[c & 15];
      control = true;
    } else {
      shown += ch;
    }
  }
  if (control) return Status::InvalidArgument(label + " '" + shown + "' contains a control character");
  for (char ch : name) {
    if (ch == '/' || ch == '\\') {
      return Status::InvalidArgument(label + " '" + shown + "' contains a path separator");
    }
    if (ch == '.') {
      return Status::InvalidArgument(label + " '" + shown +
                                     "' contains '.', which separates namespace levels and table names");
    }
  }
  return Status::OK();
}

Status ValidateNamespace(const Namespace& ns) {
  if (ns.empty()) return Status::InvalidArgument("namespace must have at least one level");
  for (const auto& level : ns) FLOE_RETURN_IF_ERROR(ValidateName(level, "namespace level"));
  return Status::OK();
}

Status ValidateTableIdentifier(const TableIdentifier& id) {
  if (id.ns.empty())
    return Status::InvalidArgument("table identifier " + id.ToString() + " needs a namespace");
  FLOE_RETURN_IF_ERROR(ValidateNamespace(id.ns));
  return ValidateName(id.name, "table name");
}

std::string TableIdentifier::ToString() const {
  return ns.empty() ? name : NamespaceToString(ns) + "." + name;
}

bool TableIdentifier::operator<(const TableIdentifier& other) const {
  return std::tie(ns, name) < std::tie(other.ns, other.name);
}

Result<Namespace> ParseNamespace(const std::string& text) {
  Namespace ns;
  std::string level;
  for (char c : text) {
    if (c == '.') {
      if (level.empty()) return Status::InvalidArgument("namespace '" + text + "' has an empty level");
      ns.push_back(level);
      level.clear();
    } else {
      level += c;
    }
  }
  if (level.empty()) return Status::InvalidArgument("namespace '" + text + "' has an empty level");
  ns.push_back(level);
  return ns;
}

Result<TableIdentifier> ParseTableIdentifier(const std::string& text) {
  FLOE_ASSIGN_OR_RETURN(Namespace parts, ParseNamespace(text));
  if (parts.size() < 2) {
    return Status::InvalidArgument("table identifier '" + text + "' needs a namespace: <namespace>.<table>");
  }
  TableIdentifier id;
  id.name = parts.back();
  parts.pop_back();
  id.ns = std::move(parts);
  return id;
}

}  // namespace floe::catalog
