#include "api/http/request_framing.h"

#include <cstddef>
#include <string_view>

#include <boost/beast/core/string.hpp>
#include <boost/beast/http/field.hpp>

namespace bplace::api {
namespace {

namespace http = boost::beast::http;

std::size_t Count(const Request& header, http::field field) {
  return static_cast<std::size_t>(header.count(field));
}

std::string_view Trimmed(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

bool IsToken(std::string_view value, std::string_view token) {
  return boost::beast::iequals(boost::beast::string_view(value.data(), value.size()),
                               boost::beast::string_view(token.data(), token.size()));
}

std::optional<FramingError> CheckTransferEncoding(const Request& header) {
  const std::size_t fields = Count(header, http::field::transfer_encoding);
  if (fields == 0) return std::nullopt;
  if (header.version() < 11) {
    return FramingError{400, "Transfer-Encoding is not allowed in an HTTP/1.0 request"};
  }
  const auto value = header[http::field::transfer_encoding];
  if (fields > 1 || !IsToken(Trimmed(std::string_view(value.data(), value.size())), "chunked")) {
    return FramingError{400, "unsupported Transfer-Encoding: only a single `chunked` is accepted"};
  }
  return std::nullopt;
}

std::optional<FramingError> CheckContentEncoding(const Request& header) {
  const auto [first, last] = header.equal_range(http::field::content_encoding);
  for (auto field = first; field != last; ++field) {
    std::string_view rest(field->value().data(), field->value().size());
    // A list of codings ("identity, gzip"): every one must be identity.
    while (true) {
      const std::size_t comma = rest.find(',');
      const std::string_view coding = Trimmed(rest.substr(0, comma));
      if (!coding.empty() && !IsToken(coding, "identity")) {
        return FramingError{415, "unsupported Content-Encoding '" + std::string(coding) +
                                     "': send the body uncompressed"};
      }
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<FramingError> CheckFraming(const Request& header) {
  if (auto error = CheckTransferEncoding(header)) return error;
  const std::size_t lengths = Count(header, http::field::content_length);
  if (lengths > 1 || (lengths == 1 && header[http::field::content_length].find(',') !=
                                          boost::beast::string_view::npos)) {
    return FramingError{400, "more than one Content-Length"};
  }
  const std::size_t hosts = Count(header, http::field::host);
  if (hosts > 1) return FramingError{400, "more than one Host header"};
  if (hosts == 0 && header.version() >= 11) {
    return FramingError{400, "an HTTP/1.1 request needs a Host header"};
  }
  if (Count(header, http::field::authorization) > 1) {
    return FramingError{400, "more than one Authorization header"};
  }
  return CheckContentEncoding(header);
}

}  // namespace bplace::api
