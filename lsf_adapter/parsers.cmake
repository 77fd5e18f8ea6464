# Parser sources: target_sources(bplace_lsf PRIVATE ...)
