#pragma once

// Plain-text tables for people, fitted to a terminal's width.

#include <cstddef>
#include <string>
#include <vector>

namespace bplace::cli {

// A table: a header row and rows of cells (UTF-8 text, one line each).
// Plain data; build one, then Render it.
struct Table {
  std::vector<std::string> headers;
  std::vector<std::vector<std::string>> rows;  // each as long as headers
};

// The marker that ends a cut cell ("…", one column wide).
inline constexpr char kCutMarker[] = "\xE2\x80\xA6";

// Lays `table` out in at most `width` columns (counted in code points): the
// columns two blanks apart, each as wide as its widest cell; when that is too
// wide, the widest columns shrink one at a time (never below
// min(natural width, 6)) and cells longer than their column are cut to end in
// kCutMarker. Never breaks a UTF-8 sequence. A table that cannot fit even so
// is printed at the minimum widths (wider than `width`). Lines end with "\n"
// and carry no trailing blanks. Pure.
std::string RenderTable(const Table& table, std::size_t width);

// The width to lay tables out in: the terminal's (TIOCGWINSZ on stdout),
// else $COLUMNS when it is a positive number, else 80.
std::size_t OutputWidth();

// The number of code points of UTF-8 `text` (bytes that do not continue a
// sequence).
std::size_t DisplayWidth(const std::string& text);

}  // namespace bplace::cli
