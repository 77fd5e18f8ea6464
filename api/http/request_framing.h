#pragma once

// The rules a request's headers must follow before anything reads its body
// or hands it to a route: message framing (RFC 9112 §6), Host (RFC 9112
// §3.2), and the fields whose duplicates would let two parts of a chain
// read one request differently.

#include <optional>
#include <string>

#include "api/http/message.h"

namespace bplace::api {

// Why a request's headers are refused: the HTTP status (400 or 415) and a
// sentence for the problem's detail naming the field.
struct FramingError {
  unsigned status = 400;
  std::string detail;
};

// Checks the headers of `header` (a request as Beast's parser has them once
// the header is read; the body may still be to come). Refuses, with 400:
//  - a Transfer-Encoding other than exactly `chunked` (one token, in one
//    field): `xchunked`, `identity`, `chunked, identity`, `gzip, chunked` or
//    two Transfer-Encoding fields. RFC 9112 §6.3 makes an unrecognised final
//    coding a framing error the server must answer with 400 and close;
//    Beast 1.74 takes such a request as having no body, so the body would be
//    read as a second request (a smuggling primitive). Transfer-Encoding on
//    an HTTP/1.0 request is refused too (§6.1);
//  - more than one Content-Length field, or a list ("5, 5"), which Beast
//    accepts when the values agree;
//  - an HTTP/1.1 request without Host, and any request with two (§3.2);
//  - more than one Authorization field: which one a proxy checked and which
//    one we would read is anybody's guess.
// Refuses with 415 a Content-Encoding other than `identity`: bodies are
// read as they come, never decompressed. Returns nullopt when the headers
// are acceptable. Pure.
std::optional<FramingError> CheckFraming(const Request& header);

}  // namespace bplace::api
