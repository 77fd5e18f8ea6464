#pragma once

// The schema of the config file, private to config/: every table and key the
// file may hold, how each is read, whether SIGHUP applies it, and the field
// it fills. The parser (config_loader.cc), the suggestions for unknown keys
// (did_you_mean.cc) and the reload diff (config_diff.cc) all read it, so the
// table in config_schema.cc is the one list of keys.

#include <span>
#include <string>
#include <string_view>

#include "config/config.h"
#include "config/config_diff.h"

namespace bplace::config {

class Field;  // config/toml_readers.h

// Reads a key's value into its field(s) of the Config, or reports through
// the Field (config/toml_readers.h).
using Reader = void (*)(const Field&, Config&);
using Shower = std::string (*)(const Config&);
using Copier = void (*)(const Config& from, Config& to);

// One key of a table: its name as the file writes it, how it is read,
// whether SIGHUP applies it, and how its field is shown and copied.
struct KeySpec {
  std::string_view name;
  Reader read;
  KeyReload reload;
  Shower show;  // the key's value in `config`, for messages
  Copier copy;  // sets the key's field(s) of `to` from `from`
};

// One table of the file ("[lsf]") and its keys.
struct TableSpec {
  std::string_view name;
  std::span<const KeySpec> keys;
};

// Every table of the file, in the order config/bplaced.example.toml lists
// them, each with its keys in that order.
std::span<const TableSpec> SchemaTables();

// The table named `name` ("lsf"); nullptr when the schema has none.
const TableSpec* FindTable(std::string_view name);

// The key `name` ("load_refresh_s") of `table`; nullptr when it has none.
const KeySpec* FindKey(const TableSpec& table, std::string_view name);

}  // namespace bplace::config
