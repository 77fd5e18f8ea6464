#include "cli/table.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <string_view>

namespace bplace::cli {
namespace {

constexpr std::size_t kMinColumn = 6;
constexpr std::size_t kGap = 2;

bool ContinuesSequence(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

// `text` cut to `width` code points, the last one kCutMarker when cut.
std::string Fit(const std::string& text, std::size_t width) {
  if (DisplayWidth(text) <= width) return text;
  if (width == 0) return {};
  std::size_t kept = 0;
  std::size_t end = 0;
  while (end < text.size()) {
    if (!ContinuesSequence(text[end])) {
      if (kept == width - 1) break;
      ++kept;
    }
    ++end;
  }
  return text.substr(0, end) + kCutMarker;
}

std::vector<std::size_t> ColumnWidths(const Table& table, std::size_t width) {
  std::vector<std::size_t> widths(table.headers.size(), 0);
  for (std::size_t c = 0; c < widths.size(); ++c) {
    widths[c] = DisplayWidth(table.headers[c]);
    for (const auto& row : table.rows) {
      if (c < row.size()) widths[c] = std::max(widths[c], DisplayWidth(row[c]));
    }
  }
  std::vector<std::size_t> floor(widths.size());
  for (std::size_t c = 0; c < widths.size(); ++c) floor[c] = std::min(widths[c], kMinColumn);
  auto total = [&] {
    std::size_t sum = widths.empty() ? 0 : kGap * (widths.size() - 1);
    for (std::size_t w : widths) sum += w;
    return sum;
  };
  while (total() > width) {
    // Shrink the widest column that may still shrink (the first of equals).
    std::size_t widest = widths.size();
    for (std::size_t c = 0; c < widths.size(); ++c) {
      if (widths[c] > floor[c] && (widest == widths.size() || widths[c] > widths[widest])) {
        widest = c;
      }
    }
    if (widest == widths.size()) break;
    --widths[widest];
  }
  return widths;
}

void AppendRow(std::string& out, const std::vector<std::string>& cells,
               const std::vector<std::size_t>& widths) {
  std::string line;
  for (std::size_t c = 0; c < widths.size(); ++c) {
    const std::string cell = Fit(c < cells.size() ? cells[c] : std::string(), widths[c]);
    line += cell;
    if (c + 1 < widths.size()) line.append(widths[c] - DisplayWidth(cell) + kGap, ' ');
  }
  while (!line.empty() && line.back() == ' ') line.pop_back();
  out += line;
  out += '\n';
}

}  // namespace

std::size_t DisplayWidth(const std::string& text) {
  std::size_t count = 0;
  for (char c : text) {
    if (!ContinuesSequence(c)) ++count;
  }
  return count;
}

std::string RenderTable(const Table& table, std::size_t width) {
  const std::vector<std::size_t> widths = ColumnWidths(table, width);
  std::string out;
  AppendRow(out, table.headers, widths);
  for (const auto& row : table.rows) AppendRow(out, row, widths);
  return out;
}

std::size_t OutputWidth() {
  struct winsize size {};
  if (::ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) return size.ws_col;
  if (const char* columns = std::getenv("COLUMNS")) {
    char* end = nullptr;
    const long value = std::strtol(columns, &end, 10);
    if (end != columns && *end == '\0' && value > 0) return static_cast<std::size_t>(value);
  }
  return 80;
}

}  // namespace bplace::cli
