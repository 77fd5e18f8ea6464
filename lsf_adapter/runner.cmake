# Command runner sources: target_sources(bplace_lsf PRIVATE ...)
# SubprocessCommandRunner in layers: resolve_executable and fork_exec_as
# under spawn (blocking: creates the child, returns plain descriptors), and
# subprocess_child (the Asio lifecycle of one command) under the runner.
target_sources(bplace_lsf PRIVATE
  fork_exec_as.cc
  lsf_invoker.cc
  metered_command_runner.cc
  resolve_executable.cc
  spawn.cc
  subprocess_child.cc
  subprocess_command_runner.cc
)
