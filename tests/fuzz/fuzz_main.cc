// The entry point of one libFuzzer binary. CMake compiles this file once per
// target with BPLACE_FUZZ_FUNCTION set to that target's body (a function of
// fuzz_targets.h), so every binary fuzzes exactly one entry point.

#include <cstddef>
#include <cstdint>

#include "tests/fuzz/fuzz_targets.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return bplace::fuzz::BPLACE_FUZZ_FUNCTION(data, size);
}
