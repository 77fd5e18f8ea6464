# HTTP server: listening sockets, the session (one connection), the server
# (accept loops, limits, drain), router, problem+json responses.
target_sources(bplace_api PRIVATE http_server.cc http_session.cc listening_socket.cc problem.cc
                                  request_id.cc router.cc)
# The listen-address syntax (HOST:PORT, unix:/PATH) is config's, shared with
# the config loader's validation.
target_link_libraries(bplace_api PRIVATE bplace_config)
# The Server header names the version; only this file needs it.
set_property(SOURCE http_session.cc APPEND PROPERTY COMPILE_DEFINITIONS
             BPLACE_VERSION="${PROJECT_VERSION}")
