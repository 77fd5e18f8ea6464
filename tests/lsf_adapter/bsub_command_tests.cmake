# bsub argv building, shell quoting and the extra_args check: pure functions.
add_executable(bsub_command_test bsub_command_test.cc)
target_link_libraries(bsub_command_test PRIVATE bplace_lsf GTest::gtest_main GTest::gmock
                      bplace_warnings)
gtest_discover_tests(bsub_command_test PROPERTIES LABELS unit)
