#pragma once

// A bsub command line of LSF 10.1 respelled for an OpenLava-family bsub
// (volclava 2.2), which lacks -cwd and units (docs/lsf-front-door.md
// "OpenLava-family clusters"). Pure functions.

#include <optional>
#include <string>
#include <string_view>

#include "common/result.h"
#include "lsf_adapter/bsub_command.h"
#include "lsf_adapter/lsf_dialect.h"

namespace bplace::lsf {

// What runs on an OpenLava-family cluster in place of `BuildBsubArgv(options)`.
struct OpenlavaBsub {
  BsubOptions options;  // without cwd; memory and -R values in the cluster's units
  // The directory bsub must run in (LSF 10.1's -cwd: the job's working
  // directory, relative to the submitter's); nullopt: bsub's own.
  std::optional<std::string> run_in;
};

// Respells `options` for volclava's bsub (its getopt template, from
// lsbatch/cmd/cmd.sub.c, and the client checks of lsb.sub.c; the simulator's
// tests/lsfsim/openlava.h follows both):
//  - -cwd DIR is taken off the command line and returned as `run_in`:
//    volclava reads `-cwd .` as `-c wd` (a CPU limit) and refuses it;
//  - -M with a unit ("2147MB", "2G") becomes a whole number in
//    `units.limits` (volclava takes a positive integer only), rounded up;
//  - mem, swp, swap and tmp values with a unit in every -R (the request's,
//    the daemon's, and those in extra_args) become whole numbers in
//    `units.resources` (mbatchd refuses units: "Bad resource requirement
//    syntax").
// Errors: kRejected naming the option, for what volclava's bsub lacks or
// would misread without a word: -app, and any option in extra_args that is
// not one of its own (-G, -g, -gpu, -env, -oo, -eo, -sla, ...: its getopt
// takes `-oo f` as `-o o` followed by the command `f`); kInvalidArgument
// naming the value for a memory amount that cannot be converted.
Result<OpenlavaBsub> RespellBsubForOpenlava(BsubOptions options, const LimitUnits& units);

// The job script bsub reads on stdin with its #BSUB lines respelled as
// RespellBsubForOpenlava respells the command line (`respelled`, its
// result, which this completes):
//  - `#BSUB -cwd DIR` is taken out of the line; DIR (the last one, as bsub
//    reads the lines in order) becomes respelled.run_in unless the command
//    line gave -cwd (bsub lets the command line's option replace the
//    script's);
//  - -M values with a unit become whole numbers in `units.limits`, and mem,
//    swp, swap and tmp values with a unit in -R values whole numbers in
//    `units.resources`;
//  - a line that changes is written again as "#BSUB" and its words, each
//    double-quoted when it holds a blank, '#' or a quote (single-quoted when
//    it holds a double quote), and its continuation lines become "#"
//    lines, so that the script keeps its line count; a line left with no
//    option becomes a comment; every other line stays byte for byte.
// Errors: kRejected naming the option, for an option volclava's bsub lacks
// (as RespellBsubForOpenlava); kInvalidArgument for a script
// ParseEmbeddedOptions refuses, a memory amount that cannot be converted,
// and a word holding both kinds of quotes. Pure.
Result<std::string> RespellScriptForOpenlava(std::string_view script, const LimitUnits& units,
                                             OpenlavaBsub& respelled);

}  // namespace bplace::lsf
