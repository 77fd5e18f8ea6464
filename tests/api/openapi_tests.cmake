# The OpenAPI document (api/openapi_document.h): its operations against the
# router's routes and the decoder's fields, and redocly's lint of what
# bplaced serves. Included from tests/api/CMakeLists.txt.
add_executable(openapi_document_test openapi_document_test.cc)
target_link_libraries(openapi_document_test PRIVATE bplace_api GTest::gmock GTest::gtest_main bplace_warnings)
target_compile_definitions(openapi_document_test PRIVATE BPLACE_TEST_VERSION="${PROJECT_VERSION}")
gtest_discover_tests(openapi_document_test PROPERTIES LABELS unit)

add_test(NAME openapi_lint
         COMMAND ${PROJECT_SOURCE_DIR}/tools/lint-openapi.sh $<TARGET_FILE:bplaced>
                 ${CMAKE_CURRENT_BINARY_DIR}/openapi.json)
set_tests_properties(openapi_lint PROPERTIES LABELS unit TIMEOUT 300)
# The lint can fail: the same script on a document it must refuse.
add_test(NAME openapi_lint_refuses_a_bad_document
         COMMAND ${PROJECT_SOURCE_DIR}/tools/lint-openapi.sh
                 ${CMAKE_CURRENT_SOURCE_DIR}/openapi_bad_bplaced.sh
                 ${CMAKE_CURRENT_BINARY_DIR}/openapi_bad.json)
set_tests_properties(openapi_lint_refuses_a_bad_document PROPERTIES LABELS unit TIMEOUT 300
                     PASS_REGULAR_EXPRESSION "Validation failed with [0-9]+ error")

# tools/validate-responses.py, which checks the integration tests' answers
# (tests/integration/CMakeLists.txt), on hand-made exchanges.
add_test(NAME validate_responses_test
         COMMAND /usr/bin/python3 ${PROJECT_SOURCE_DIR}/tests/tools/validate_responses_test.py)
set_tests_properties(validate_responses_test PROPERTIES LABELS unit TIMEOUT 120)
