#pragma once

// "Did you mean" for unknown tables and keys of the config file, private to
// config/: the closest name in the schema within two edits, or the table
// where a misplaced key belongs. Each function returns the tail of a message
// ("; did you mean `load_refresh_s`?"), or "" when nothing is close.

#include <string>
#include <string_view>

#include "config/config_schema.h"

namespace bplace::config {

// A key that exists, but in another table: "server.load_refresh_s" is a
// misplaced line more often than a misspelt one.
// Looks in every table but `except` (nullptr: every table). Returns
// "; did you mean `lsf.load_refresh_s` (under [lsf])?", or "".
std::string SuggestOtherTable(std::string_view name, const TableSpec* except);

// For the unknown key `name` of `table`: the closest key of that table
// within two edits, else the table where `name` is a key, else "".
std::string SuggestKey(const TableSpec& table, std::string_view name);

// For the unknown table `name`: "; did you mean `[server]`?" for the closest
// table within two edits, else "".
std::string SuggestTable(std::string_view name);

}  // namespace bplace::config
