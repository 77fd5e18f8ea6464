# Submission and LSF-call limits (daemon/rate_limiter.h). config/config.h is
# header-only structs, reached through bplace_core's include directory.
target_sources(bplace_core PRIVATE rate_limiter.cc)
