# tests of api/auth: the token store, the Authorization header and
# tools/bplace-token end to end (the script is run from the source tree).
add_executable(auth_test auth_test.cc token_store_test.cc)
target_link_libraries(auth_test PRIVATE bplace_api GTest::gtest_main bplace_warnings)
target_compile_definitions(auth_test PRIVATE
  BPLACE_TOKEN_TOOL="${PROJECT_SOURCE_DIR}/tools/bplace-token")
gtest_discover_tests(auth_test PROPERTIES LABELS unit)
