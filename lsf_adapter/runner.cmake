# Command runner sources: target_sources(bplace_lsf PRIVATE ...)
target_sources(bplace_lsf PRIVATE subprocess_command_runner.cc user_identity.cc)
