#pragma once

// The status page at GET / (docs/api.md "GET / (status page)"): an HTML page,
// its stylesheet and its script, embedded in the binary at build time from
// api/status_page/ (api/status_page/embed_assets.cmake writes the table), so
// bplaced never looks up a file at run time. The page reads the JSON API
// (/v1/cluster, /v1/queues, /v1/hosts, /v1/hostgroups, /v1/jobs, /readyz)
// from the browser; the server side only serves bytes. Thread-safe: the
// assets are constants.

#include <span>
#include <string_view>

#include "api/http/message.h"

namespace bplace::api {

// One embedded file: the path it is served at, its Content-Type and its bytes.
struct StaticAsset {
  std::string_view path;          // "/", "/status/status.css", ...
  std::string_view content_type;  // "text/html; charset=utf-8", ...
  std::string_view body;
};

// Every asset of the status page, "/" first. Generated at build time.
std::span<const StaticAsset> StatusPageAssets();

// The Content-Security-Policy of every asset: scripts, styles and fetches
// from the daemon's own origin only (no inline script or style, no CDN), no
// framing, no forms, no plugins.
inline constexpr std::string_view kStatusPageCsp =
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
    "img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

// 200 with `asset`'s bytes and Content-Type, the CSP above,
// X-Content-Type-Options: nosniff, Referrer-Policy: no-referrer and
// Cache-Control: no-cache (a wall screen picks up a new daemon's page on
// its next load). Pure; never fails.
Response ServeAsset(const StaticAsset& asset, const Request& req);

}  // namespace bplace::api
