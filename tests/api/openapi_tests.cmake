# The OpenAPI document (api/openapi_document.h): its operations against the
# router's routes and the decoder's fields, and redocly's lint of what
# bplaced serves. Included from tests/api/CMakeLists.txt.
add_executable(openapi_document_test openapi_document_test.cc)
target_link_libraries(openapi_document_test PRIVATE bplace_api GTest::gtest_main bplace_warnings)
target_compile_definitions(openapi_document_test PRIVATE BPLACE_TEST_VERSION="${PROJECT_VERSION}")
gtest_discover_tests(openapi_document_test PROPERTIES LABELS unit)

add_test(NAME openapi_lint
         COMMAND ${PROJECT_SOURCE_DIR}/tools/lint-openapi.sh $<TARGET_FILE:bplaced>
                 ${CMAKE_CURRENT_BINARY_DIR}/openapi.json)
set_tests_properties(openapi_lint PROPERTIES LABELS unit TIMEOUT 300)
