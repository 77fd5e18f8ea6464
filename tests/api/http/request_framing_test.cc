#include "api/http/request_framing.h"

#include <string>

#include <gtest/gtest.h>
#include <boost/beast/http/field.hpp>

namespace bplace::api {
namespace {

namespace http = boost::beast::http;

// A POST with Host, as a well-behaved client sends it.
Request Post(unsigned version = 11) {
  Request req{http::verb::post, "/v1/jobs", version};
  req.set(http::field::host, "bplace");
  return req;
}

unsigned StatusOf(const Request& req) {
  const auto error = CheckFraming(req);
  return error ? error->status : 0;
}

TEST(CheckFramingTest, AcceptsAPlainRequestAndASingleChunked) {
  EXPECT_EQ(StatusOf(Post()), 0u);
  Request chunked = Post();
  chunked.set(http::field::transfer_encoding, " Chunked ");
  EXPECT_EQ(StatusOf(chunked), 0u);
  Request identity = Post();
  identity.set(http::field::content_encoding, "identity");
  EXPECT_EQ(StatusOf(identity), 0u);
  Request old{http::verb::get, "/", 10};  // HTTP/1.0 may leave Host out
  EXPECT_EQ(StatusOf(old), 0u);
}

TEST(CheckFramingTest, RefusesEveryOtherTransferEncodingWith400) {
  for (const char* coding : {"xchunked", "identity", "chunked, identity", "gzip, chunked", ""}) {
    Request req = Post();
    req.set(http::field::transfer_encoding, coding);
    const auto error = CheckFraming(req);
    ASSERT_TRUE(error) << coding;
    EXPECT_EQ(error->status, 400u) << coding;
    EXPECT_NE(error->detail.find("Transfer-Encoding"), std::string::npos);
  }
  Request twice = Post();
  twice.insert(http::field::transfer_encoding, "chunked");
  twice.insert(http::field::transfer_encoding, "chunked");
  EXPECT_EQ(StatusOf(twice), 400u);
  Request old = Post(10);
  old.set(http::field::transfer_encoding, "chunked");
  EXPECT_EQ(StatusOf(old), 400u);
}

TEST(CheckFramingTest, RefusesMissingOrRepeatedHost) {
  Request none{http::verb::get, "/", 11};
  EXPECT_EQ(CheckFraming(none)->detail, "an HTTP/1.1 request needs a Host header");
  Request two = Post();
  two.insert(http::field::host, "other");
  EXPECT_EQ(CheckFraming(two)->detail, "more than one Host header");
}

TEST(CheckFramingTest, RefusesRepeatedAuthorizationAndContentLength) {
  Request auth = Post();
  auth.insert(http::field::authorization, "Bearer a");
  auth.insert(http::field::authorization, "Bearer b");
  EXPECT_EQ(CheckFraming(auth)->detail, "more than one Authorization header");
  Request lengths = Post();
  lengths.insert(http::field::content_length, "5");
  lengths.insert(http::field::content_length, "5");
  EXPECT_EQ(StatusOf(lengths), 400u);
  Request list = Post();
  list.set(http::field::content_length, "5, 5");
  EXPECT_EQ(StatusOf(list), 400u);
}

TEST(CheckFramingTest, RefusesContentEncodingOtherThanIdentityWith415) {
  for (const char* coding : {"gzip", "identity, br", "deflate"}) {
    Request req = Post();
    req.set(http::field::content_encoding, coding);
    const auto error = CheckFraming(req);
    ASSERT_TRUE(error) << coding;
    EXPECT_EQ(error->status, 415u) << coding;
  }
}

}  // namespace
}  // namespace bplace::api
