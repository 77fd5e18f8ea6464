# HTTP server sources: target_sources(bplace_api PRIVATE ...)
