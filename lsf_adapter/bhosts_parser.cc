#include "lsf_adapter/bhosts_parser.h"

#include <cstddef>
#include <string>

#include "lsf_adapter/table.h"

namespace bplace::lsf {

namespace {

constexpr std::string_view kBhostsCommand = "bhosts -w";

}  // namespace

Result<std::vector<HostStatus>> ParseBhosts(std::string_view text) {
  const std::vector<Line> lines = SplitLines(text);
  auto header = FindTableHeader(
      kBhostsCommand, lines, "HOST_NAME",
      {"HOST_NAME", "STATUS", "JL/U", "MAX", "NJOBS", "RUN", "SSUSP", "USUSP", "RSV"});
  if (!header) return tl::unexpected(header.error());
  const std::size_t name_at = *header->Find("HOST_NAME");
  const std::size_t status_at = *header->Find("STATUS");

  std::vector<HostStatus> hosts;
  for (std::size_t i = header->position + 1; i < lines.size(); ++i) {
    auto cells = RowCells(kBhostsCommand, *header, lines[i]);
    if (!cells) return tl::unexpected(cells.error());
    const std::vector<std::string_view>& fields = *cells;
    if (fields.empty()) continue;
    const Place where{kBhostsCommand, lines[i].number};
    auto value = [&](std::string_view column) { return fields[*header->Find(column)]; };
    HostStatus host;
    host.name = std::string(fields[name_at]);
    host.status = std::string(fields[status_at]);

    auto jl_u = ParseLimit(where, "JL/U", value("JL/U"));
    if (!jl_u) return tl::unexpected(jl_u.error());
    auto max = ParseLimit(where, "MAX", value("MAX"));
    if (!max) return tl::unexpected(max.error());
    host.jl_u = *jl_u;
    host.max = *max;

    struct CountField {
      std::string_view column;
      std::int64_t* field;
    };
    for (const CountField& count :
         {CountField{"NJOBS", &host.njobs}, CountField{"RUN", &host.run},
          CountField{"SSUSP", &host.ssusp}, CountField{"USUSP", &host.ususp},
          CountField{"RSV", &host.rsv}}) {
      auto parsed = ParseCount(where, count.column, value(count.column));
      if (!parsed) return tl::unexpected(parsed.error());
      *count.field = *parsed;
    }
    hosts.push_back(std::move(host));
  }
  return hosts;
}

}  // namespace bplace::lsf
