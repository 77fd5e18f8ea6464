#pragma once

// Whole-line appends to a file that several threads of this process write at
// once: the harness's record of API exchanges (<pid>.jsonl), where every
// line must stay one JSON object.

#include <filesystem>
#include <string_view>

namespace bplace::testing {

// Appends `line` and a newline to `file` (created with mode 0644 when
// missing). Thread-safe: concurrent calls, on the same file or not, never
// interleave their lines however long they are. Blocks on the write.
// Returns false, errno set by the failing call (open or write), when the file
// cannot be opened or written; a partial line may then remain.
bool AppendLine(const std::filesystem::path& file, std::string_view line);

}  // namespace bplace::testing
