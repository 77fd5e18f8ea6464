# parser tests
add_executable(lsf_parsers_test
  bhosts_parser_test.cc
  bjobs_command_test.cc
  bjobs_long_parser_test.cc
  bjobs_parser_test.cc
  bjobs_robustness_test.cc
  bkill_reply_test.cc
  bqueues_long_parser_test.cc
  bqueues_parser_test.cc
  bsub_reply_test.cc
  command_failure_test.cc
  group_parser_test.cc
  job_record_test.cc
  json_reader_test.cc
  lsclusters_parser_test.cc
  lsid_parser_test.cc
  lsload_parser_test.cc
  lsb_events_parser_test.cc
  lsf_time_test.cc
  parser_robustness_test.cc
  testdata.cc
)
bplace_unity_build(lsf_parsers_test)
target_link_libraries(lsf_parsers_test PRIVATE bplace_lsf GTest::gtest_main bplace_warnings)
# Tests read captured output from tests/testdata/lsf/.
target_compile_definitions(lsf_parsers_test
  PRIVATE BPLACE_TESTDATA_DIR="${PROJECT_SOURCE_DIR}/tests/testdata")
gtest_discover_tests(lsf_parsers_test PROPERTIES LABELS unit)
