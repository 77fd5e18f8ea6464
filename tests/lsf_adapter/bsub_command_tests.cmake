# bsub argv building, shell quoting, the extra_args check, the #BSUB lines
# of a script and the syntax of option values: pure functions.
add_executable(bsub_command_test bsub_command_test.cc bsub_script_test.cc bsub_values_test.cc)
bplace_unity_build(bsub_command_test)
target_link_libraries(bsub_command_test PRIVATE bplace_lsf GTest::gtest_main GTest::gmock
                      bplace_warnings)
gtest_discover_tests(bsub_command_test PROPERTIES LABELS unit)

# The front door's readers and writer of bsub and bjobs command lines.
add_executable(lsf_command_line_test bsub_command_line_test.cc bjobs_command_line_test.cc
                                     bkill_command_line_test.cc
                                     bjobs_writer_test.cc bjobs_list_test.cc)
bplace_unity_build(lsf_command_line_test)
target_link_libraries(lsf_command_line_test PRIVATE bplace_lsf GTest::gtest_main bplace_warnings)
gtest_discover_tests(lsf_command_line_test PROPERTIES LABELS unit)

# The cluster's family and units, and bsub respelled for OpenLava.
add_executable(lsf_dialect_test lsf_dialect_test.cc)
target_link_libraries(lsf_dialect_test PRIVATE bplace_lsf GTest::gtest_main bplace_warnings)
gtest_discover_tests(lsf_dialect_test PROPERTIES LABELS unit)
