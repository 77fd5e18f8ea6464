# Command runner sources: target_sources(bplace_lsf PRIVATE ...)
target_sources(bplace_lsf PRIVATE lsf_invoker.cc subprocess_command_runner.cc)
