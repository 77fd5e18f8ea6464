# runner tests: SubprocessCommandRunner against real processes (sh, cat, env,
# printf, head from coreutils) and FakeCommandRunner.
add_executable(command_runner_test
  fake_command_runner_test.cc
  subprocess_command_runner_test.cc
)
target_link_libraries(command_runner_test PRIVATE bplace_lsf GTest::gtest_main bplace_warnings)
gtest_discover_tests(command_runner_test PROPERTIES LABELS unit)
