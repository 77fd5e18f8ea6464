# tests of daemon limits: the rate limiter, on fixed time points.
add_executable(limits_test submit/rate_limiter_test.cc)
target_link_libraries(limits_test PRIVATE bplace_core GTest::gtest_main bplace_warnings)
gtest_discover_tests(limits_test PROPERTIES LABELS unit)
