# Command runner sources: target_sources(bplace_lsf PRIVATE ...)
# SubprocessCommandRunner in layers: spawn (blocking: creates the child and
# returns plain descriptors, with resolve_executable and fork_exec_as under
# it) and the Asio lifecycle of each command above it.
target_sources(bplace_lsf PRIVATE
  fork_exec_as.cc
  lsf_invoker.cc
  resolve_executable.cc
  spawn.cc
  subprocess_command_runner.cc
)
