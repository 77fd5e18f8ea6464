# Command runner sources: target_sources(bplace_lsf PRIVATE ...)
