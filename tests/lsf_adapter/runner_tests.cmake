# runner tests: SubprocessCommandRunner against real processes (sh, cat, env,
# printf, head, id, setpriv from coreutils/util-linux), FakeCommandRunner,
# and the run-as path with the user lookups (needs root and the users of
# tools/test-users.sh; skips without them).
add_executable(command_runner_test
  fake_command_runner_test.cc
  run_as_test.cc
  subprocess_command_runner_test.cc
)
target_link_libraries(command_runner_test PRIVATE bplace_lsf GTest::gtest_main bplace_warnings)
gtest_discover_tests(command_runner_test PROPERTIES LABELS unit)

# LsfInvoker: the specs of LSF commands and the environment their children
# get. Pure but for RunAsFor's stat of a scratch home directory.
add_executable(lsf_invoker_test lsf_invoker_test.cc)
target_link_libraries(lsf_invoker_test PRIVATE bplace_lsf GTest::gtest_main bplace_warnings)
gtest_discover_tests(lsf_invoker_test PROPERTIES LABELS unit)

# MeteredCommandRunner: the counts of LSF commands, on FakeCommandRunner.
add_executable(metered_command_runner_test metered_command_runner_test.cc)
target_include_directories(metered_command_runner_test PRIVATE ${PROJECT_SOURCE_DIR})
target_link_libraries(metered_command_runner_test PRIVATE bplace_lsf GTest::gtest_main GTest::gmock
                      bplace_warnings)
gtest_discover_tests(metered_command_runner_test PROPERTIES LABELS unit)
