#pragma once

// Who bplaced runs as, and whether it holds the privileges its [auth] mode
// needs; checked once at start-up, before anything is served.

#include <string>

#include "api/options.h"
#include "common/result.h"

namespace bplace {

// The name of the effective uid in the passwd database; blocks on NSS.
// Returns kNotFound when the uid has no name.
Result<std::string> CurrentUserName();

// Service-account mode never runs as root (a bug in a parser must not be
// root's); multi-user mode needs exactly the power to become the caller.
// Returns kInvalidArgument saying what is wrong and how to run instead: root
// in service-account mode; in multi-user mode, not root, or without
// CAP_SETUID, CAP_SETGID and CAP_KILL in effect (read from /proc/self/status).
Result<void> CheckModePrivileges(api::AuthMode mode);

}  // namespace bplace
