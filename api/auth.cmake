# Authentication: bearer tokens (api/token_store.h). libcrypto provides SHA-256
# and CRYPTO_memcmp; it stays private, no OpenSSL type is in a public header.
target_sources(bplace_api PRIVATE auth.cc token_store.cc)
target_link_libraries(bplace_api PRIVATE OpenSSL::Crypto)
