#pragma once

// Splitting and trimming on blanks, for LSF's whitespace-aligned tables and
// the line-oriented files bplace reads (the token file), and decimal and hex
// digits.
// Pure functions, safe from any thread.

#include <string_view>
#include <vector>

namespace bplace {

// True when `c` is a blank: space, tab, CR, LF, VT or FF.
bool IsBlank(char c);

// `text` without leading and trailing blanks; points into `text`.
std::string_view Trim(std::string_view text);

// Splits one line into fields on runs of blanks. Leading and trailing blanks
// yield no empty fields; the views point into `line`.
std::vector<std::string_view> SplitFields(std::string_view line);

// True when `c` is a decimal digit, '0' to '9'.
bool IsDigit(char c);

// True when `text` is not empty and every character of it is a decimal digit
// (no sign, no blanks).
bool AllDigits(std::string_view text);

// The value 0-15 of one hexadecimal digit (either case), or -1 when `c` is
// not one (percent-escapes in URLs, SHA-256 hashes in the token file).
int HexDigitValue(char c);

}  // namespace bplace
