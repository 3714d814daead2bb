// The dashboard `floe run --http` serves at GET /: one HTML page, its
// script and its style sheet, compiled into the binary (no external assets:
// it works offline).
//
// Contract: the page holds no data; its script fetches /api/status (with
// the bearer token given in the page's #token= fragment, which browsers
// never send to the server, kept in sessionStorage) every 5 seconds and
// builds every element with createElement and textContent — never
// innerHTML with data — so file names and error messages show as text.
// The server sends the page with a Content-Security-Policy that allows only
// its own script and style (no inline script), a second wall.
#pragma once

#include <string_view>

namespace floe::observability {

std::string_view DashboardHtml();
std::string_view DashboardScript();
std::string_view DashboardStyle();

}  // namespace floe::observability
