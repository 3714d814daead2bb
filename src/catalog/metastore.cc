#include "catalog/metastore.h"

#include <tuple>

namespace floe::catalog {

std::string NamespaceToString(const Namespace& ns) {
  std::string out;
  for (size_t i = 0; i < ns.size(); ++i) {
    if (i) out += '.';
    out += ns[i];
  }
  return out;
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
