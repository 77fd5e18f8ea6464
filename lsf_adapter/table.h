#pragma once

// Helpers shared by the parsers of LSF's whitespace-aligned tables
// (bqueues, bhosts, bmgroup, lsload; see docs/lsf-formats.md "Rules for every
// parser"). Everything here is a pure function of its arguments and is safe to
// call from any thread.

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "common/text.h"

namespace bplace::lsf {

// One line of command output. `number` counts from 1 over the whole text, for
// error messages; `text` has no line end, no trailing CR and no trailing blanks.
struct Line {
  std::size_t number = 0;
  std::string_view text;
};

// Splits `text` into lines on '\n'. Accepts LF and CRLF endings, a missing
// final line end, and strips trailing spaces and tabs (LSF pads headers and
// rows). The returned views point into `text`.
std::vector<Line> SplitLines(std::string_view text);

// SplitFields, Trim and IsBlank (common/text.h) split and trim the fields.

// Where a value was read, for error messages. Cheap to make: the text is
// only formatted when there is an error to report.
struct Place {
  std::string_view command;        // "bqueues -w"
  std::size_t number = 0;          // line number from 1, or record index from 0
  std::string_view unit = "line";  // "line" or "record"

  // "bqueues -w line 3", "bqueues -json record 0".
  std::string Text() const;
};

// Place{command, line_number}.Text(): the prefix of every parse error message.
std::string Where(std::string_view command, std::size_t line_number);

// The header row of a whitespace table and where it was found.
struct TableHeader {
  std::size_t position = 0;  // index of the header in the lines it was found in
  std::size_t line_number = 0;
  std::vector<std::string_view> columns;

  // Index of the first column called `name` (case-sensitive), or nullopt.
  std::optional<std::size_t> Find(std::string_view name) const;
};

// Finds the header of a table: the first line having `key_column` as a whole
// field (LSF prints retry chatter such as "LSF is down. Please wait..." before
// it; those lines are skipped). Columns are then found by name, never by
// position, so sites may add or reorder columns. Fails with kParseError
// "<command>: no header (no line with KEY)" when no line has the key column,
// and "<command> line N: header has no COL column" when a `required` column is
// missing.
Result<TableHeader> FindTableHeader(std::string_view command, const std::vector<Line>& lines,
                                    std::string_view key_column,
                                    std::initializer_list<std::string_view> required);

// The cells of one row of a table whose every cell is one token (bqueues -w,
// bhosts -w: LSF prints "-" for an empty one, so a row has exactly as many
// fields as the header has names). An empty vector for a blank line. Fails
// with kParseError "<command> line N: expected C columns, got F".
Result<std::vector<std::string_view>> RowCells(std::string_view command, const TableHeader& header,
                                               const Line& line);

// `value` in double quotes for an error message, cut after `max_shown`
// characters (then "..." before the closing quote) so that a megabyte of
// garbage does not end up in a log line: "abc", "0123456789...".
std::string QuoteForMessage(std::string_view value, std::size_t max_shown = 40);

// Reads a whole number (optional leading '-', digits only, fits int64). Used
// for LSF's slot counters. Fails with kParseError "<where>: COLUMN is "x", not a
// whole number".
Result<std::int64_t> ParseCount(const Place& where, std::string_view column,
                                std::string_view value);

// Reads a limit: "-" (LSF's unlimited) gives nullopt, otherwise as ParseCount.
Result<std::optional<std::int64_t>> ParseLimit(const Place& where, std::string_view column,
                                               std::string_view value);

// As ParseCount, but the value must also fit an int (PRIO, NICE).
Result<int> ParseSmallInt(const Place& where, std::string_view column, std::string_view value);

// True when `tokens` are "all" followed only by the words of the sentences
// LSF and OpenLava print for an all-hosts or all-users list ("all users", "all
// hosts used by the LSF Batch system", "all hosts used by the batch system").
// False for "all ~hostA" and other real lists that merely start with "all".
bool IsAllSentence(const std::vector<std::string_view>& tokens);

}  // namespace bplace::lsf
