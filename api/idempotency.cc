#include "api/idempotency.h"

#include <openssl/evp.h>

#include <array>

#include <nlohmann/json.hpp>

namespace bplace::api {
namespace {

constexpr std::size_t kMaxKeyBytes = 255;

std::string Sha256Hex(std::string_view text) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int length = 0;
  if (EVP_Digest(text.data(), text.size(), digest.data(), &length, EVP_sha256(), nullptr) != 1) {
    return std::string(64, '0');  // cannot happen with the default provider
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  for (unsigned int i = 0; i < length; ++i) {
    hex += kHex[digest[i] >> 4];
    hex += kHex[digest[i] & 0xf];
  }
  return hex;
}

bool Printable(std::string_view text) {
  for (char c : text) {
    if (c < 0x21 || c > 0x7e) return false;
  }
  return true;
}

}  // namespace

Result<std::optional<std::string>> IdempotencyKeyOf(const Request& req, const RequestContext& ctx) {
  std::size_t count = 0;
  std::string key;
  for (const auto& field : req) {
    if (!boost::beast::iequals(field.name_string(), "Idempotency-Key")) continue;
    ++count;
    key = std::string(field.value());
  }
  if (count > 1) return Fail(ErrorCode::kInvalidArgument, "Idempotency-Key: given more than once");
  if (count == 1) {
    // The draft writes the key as a structured-field string: "abc".
    if (key.size() >= 2 && key.front() == '"' && key.back() == '"') {
      key = key.substr(1, key.size() - 2);
    }
    if (key.empty() || key.size() > kMaxKeyBytes || !Printable(key)) {
      return Fail(ErrorCode::kInvalidArgument,
                  "Idempotency-Key: expected 1 to 255 printable ASCII characters without blanks");
    }
    return std::optional<std::string>(std::move(key));
  }
  const auto rid = req.find("X-Request-Id");
  if (rid != req.end() && rid->value() == ctx.request_id) {
    return std::optional<std::string>(ctx.request_id);
  }
  return std::optional<std::string>();
}

std::string CanonicalBodyHash(std::string_view body) {
  const nlohmann::json parsed = nlohmann::json::parse(body, nullptr, false);
  if (parsed.is_discarded()) return Sha256Hex(body);
  return Sha256Hex(parsed.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

std::string TagFor(std::string_view caller, const std::optional<std::string>& key,
                   std::string_view request_id) {
  if (!key) return std::string(request_id);
  return "k" + Sha256Hex(std::string(caller) + '\n' + *key).substr(0, 32);
}

}  // namespace bplace::api
