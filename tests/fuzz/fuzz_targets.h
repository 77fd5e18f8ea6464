#pragma once

// Bodies of the libFuzzer targets of bplace: one function per entry point
// that takes untrusted bytes (LSF command output, job request bodies, extra
// bsub words). Each is linked into its own libFuzzer binary (fuzz_main.cc,
// clang -fsanitize=fuzzer) and replayed by fuzz_regression_test in the
// normal build (see README.md in this folder).
//
// Every function returns 0, as LLVMFuzzerTestOneInput must. Besides "does not
// crash" each checks cheap invariants of its result (no exception escapes,
// fields consistent with the contract in the parser's header); a violated
// invariant is reported through the failure handler, and the function
// returns at once. Not thread-safe: the handler is a process-wide setting.

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace bplace::fuzz {

// Called with the target's name and a description of the broken invariant
// ("fuzz_targets.cc:123: ParseBqueues threw std::bad_alloc"). The default
// prints to stderr and calls abort(), which libFuzzer reports as a crash.
using FailureHandler = void (*)(std::string_view target, std::string_view what);

// Replaces the failure handler (nullptr restores the default). The GoogleTest
// replay uses this to turn a failure into a test failure instead of an abort.
void SetFailureHandler(FailureHandler handler);

// ParseBqueues (`bqueues -w` table). The input is the command output.
int FuzzBqueues(const std::uint8_t* data, std::size_t size);
// ParseBqueuesJson (`bqueues -o ... -json`). The input is the command output.
int FuzzBqueuesJson(const std::uint8_t* data, std::size_t size);
// ParseQueueStatus. The input is one STATUS value.
int FuzzQueueStatus(const std::uint8_t* data, std::size_t size);
// ParseBqueuesLong (`bqueues -l`). The input is the command output.
int FuzzBqueuesLong(const std::uint8_t* data, std::size_t size);
// ParseBmgroup (`bmgroup -w`). The input is the command output.
int FuzzBmgroup(const std::uint8_t* data, std::size_t size);
// ParseBugroup (`bugroup -w`). The input is the command output.
int FuzzBugroup(const std::uint8_t* data, std::size_t size);
// ExpandHostRange. The input is one condensed host name.
int FuzzExpandHostRange(const std::uint8_t* data, std::size_t size);
// ParseBhosts (`bhosts -w`). The input is the command output.
int FuzzBhosts(const std::uint8_t* data, std::size_t size);
// ClassifyBsubReply and BsubRejectionPrefix. Input layout: byte 0 is the exit
// status, then stdout up to the first NUL byte, then stderr (empty when
// there is no NUL).
int FuzzBsubReply(const std::uint8_t* data, std::size_t size);
// ParseLsid. The input is the command output.
int FuzzLsid(const std::uint8_t* data, std::size_t size);
// ParseLsload. Input layout: the index name up to the first '\n', then the
// output of `lsload -w -I INDEX`.
int FuzzLsload(const std::uint8_t* data, std::size_t size);
// CheckExtraArgs, BuildBsubArgv, ShellQuote and JoinShellQuoted. The input is
// a list of words separated by NUL bytes (the request's extra_args or argv).
int FuzzBsubArgv(const std::uint8_t* data, std::size_t size);
// DecodeJobRequest with the default limits. The input is a POST /v1/jobs body.
int FuzzJobRequest(const std::uint8_t* data, std::size_t size);

// One target by name, as fuzz.sh, the regression folders and the binaries
// (fuzz_<name>) call it.
struct FuzzTarget {
  const char* name;
  int (*function)(const std::uint8_t* data, std::size_t size);
};

// Every target, in a fixed order.
inline constexpr FuzzTarget kFuzzTargets[] = {
    {"bqueues", FuzzBqueues},
    {"bqueues_json", FuzzBqueuesJson},
    {"queue_status", FuzzQueueStatus},
    {"bqueues_long", FuzzBqueuesLong},
    {"bmgroup", FuzzBmgroup},
    {"bugroup", FuzzBugroup},
    {"expand_host_range", FuzzExpandHostRange},
    {"bhosts", FuzzBhosts},
    {"bsub_reply", FuzzBsubReply},
    {"lsid", FuzzLsid},
    {"lsload", FuzzLsload},
    {"bsub_argv", FuzzBsubArgv},
    {"job_request", FuzzJobRequest},
};

}  // namespace bplace::fuzz
