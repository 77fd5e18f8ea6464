#pragma once

// Parsers of `bqueues -w` (and `bqueues -u USER -w`) tables and of
// `bqueues -o "..." -json`. Pure functions: no I/O, safe from any thread.

#include <string_view>
#include <vector>

#include "common/result.h"
#include "lsf_adapter/lsf_types.h"

namespace bplace::lsf {

// Reads a queue STATUS as printed by bqueues and bqueues -l (LSF 10.1 and
// OpenLava; see docs/lsf-formats.md "bqueues -l"): "Open:Active",
// "Closed:Inact_Adm", possibly cut at 14 characters ("Closed:Inact_A"). Matches
// prefixes: the first half must be "Open" or "Closed", the second must start
// with "Act" or "Inact". Fails with kParseError naming the value otherwise
// (callers add the line). `text` of the result keeps the value as printed.
Result<QueueStatus> ParseQueueStatus(std::string_view value);

// Parses the table of `bqueues -w` or `bqueues -u USER -w` (format of LSF
// 10.1 and OpenLava/volclava 2.2, whose plain output has the same columns; see
// docs/lsf-formats.md "bqueues"). Lines before the header
// (retry chatter) are skipped; columns are found by header name (QUEUE_NAME
// PRIO STATUS MAX JL/U JL/P JL/H NJOBS PEND RUN SUSP, any order, extra columns
// ignored); "-" in MAX and JL/* gives nullopt. Blank lines are skipped; a
// header with no rows gives an empty vector. Fails with kParseError: "no
// header" for empty or header-less text, the missing column's name, or the
// line number and problem of a bad row ("bqueues -w line 3: expected 11
// columns, got 4"). Never throws.
Result<std::vector<QueueLoad>> ParseBqueues(std::string_view text);

// Parses `bqueues -o "queue_name status prio max njobs pend run susp" -json`
// (format of LSF 10.1.0.2+; see docs/lsf-formats.md "bqueues"). Record values
// are strings ("-" for unlimited); JSON numbers are accepted too. QUEUE_NAME
// and STATUS are required in every record; an absent PRIO or counter reads as 0
// and an absent limit as unlimited (LSF leaves out fields it was not asked
// for). Fails with kParseError for invalid JSON, a missing RECORDS array, or a
// bad record (naming its index, from 0). Never throws.
Result<std::vector<QueueLoad>> ParseBqueuesJson(std::string_view text);

}  // namespace bplace::lsf
