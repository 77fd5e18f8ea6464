#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz with clang (ASan + UBSan) in
# build/fuzz and runs each for a bounded time, seeded from tests/fuzz/seeds/,
# the captures tests/fuzz/seed_captures.txt names, and the kept regressions.
# Generated corpora, logs and artifacts stay under build/fuzz (not in git).
# Any crash, timeout, leak or out-of-memory input is copied into
# tests/fuzz/regressions/<target>/ and the script exits 1.
#
#   tools/fuzz.sh                       every target, 60 s each
#   tools/fuzz.sh --seconds 300 lsload  one target, 5 minutes
#   tools/fuzz.sh --list                the target names
#
# Options: --seconds N (per target, default 60), --jobs N (build jobs,
# default 2), --build-only, --no-build (run what build/fuzz holds, e.g. from
# a second shell while the first fuzzes other targets), --list.
# Needs clang and libclang-rt-14-dev; installs them with apt-get when they
# are missing and we are root.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${root}/build/fuzz"
fuzz_dir="${root}/tests/fuzz"
seconds=60
jobs=2
build_only=0
no_build=0
targets=()
all_targets=(bqueues bqueues_json queue_status bqueues_long bmgroup bugroup expand_host_range
  bhosts bsub_reply lsid lsload bsub_argv job_request)

usage() { sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit "${1:-0}"; }

while (($#)); do
  case "$1" in
    --seconds) seconds="${2:?--seconds needs a number}"; shift 2 ;;
    --jobs) jobs="${2:?--jobs needs a number}"; shift 2 ;;
    --build-only) build_only=1; shift ;;
    --no-build) no_build=1; shift ;;
    --list) printf '%s\n' "${all_targets[@]}"; exit 0 ;;
    -h | --help) usage 0 ;;
    -*) echo "fuzz.sh: unknown option $1" >&2; usage 2 ;;
    *) targets+=("$1"); shift ;;
  esac
done
((${#targets[@]})) || targets=("${all_targets[@]}")
for t in "${targets[@]}"; do
  [[ " ${all_targets[*]} " == *" ${t} "* ]] || { echo "fuzz.sh: no target ${t} (see --list)" >&2; exit 2; }
done
[[ "${seconds}" =~ ^[0-9]+$ ]] || { echo "fuzz.sh: --seconds wants whole seconds" >&2; exit 2; }

# A toolchain that can link -fsanitize=fuzzer (clang plus compiler-rt).
have_toolchain() {
  command -v clang++ > /dev/null || return 1
  echo 'extern "C" int LLVMFuzzerTestOneInput(const char*, unsigned long) { return 0; }' |
    clang++ -x c++ -fsanitize=fuzzer,address,undefined -o /dev/null - > /dev/null 2>&1
}
if ! have_toolchain; then
  if [[ "$(id -u)" == 0 ]] && command -v apt-get > /dev/null; then
    echo "fuzz.sh: installing clang and libclang-rt-14-dev" >&2
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq clang libclang-rt-14-dev
  fi
  have_toolchain || {
    echo "fuzz.sh: clang++ cannot link -fsanitize=fuzzer; install clang and libclang-rt-14-dev" >&2
    exit 2
  }
fi

if ((!no_build)); then
  cmake -S "${root}" -B "${build}" -G Ninja -DCMAKE_CXX_COMPILER=clang++ \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBPLACE_FUZZ=ON -DBPLACE_BUILD_BENCH=OFF > /dev/null
  # shellcheck disable=SC2046  # one word per target
  cmake --build "${build}" --target $(printf 'fuzz_%s ' "${targets[@]}") -j "${jobs}"
fi
((build_only)) && exit 0

found=0
summary=()
for t in "${targets[@]}"; do
  corpus="${build}/corpus/${t}"
  artifacts="${build}/artifacts/${t}"
  log="${build}/logs/${t}.log"
  mkdir -p "${corpus}" "${artifacts}" "$(dirname "${log}")"
  rm -f "${artifacts}"/*
  # Seeds: captures named in seed_captures.txt, then the committed seeds.
  while read -r name path; do
    [[ "${name}" == "${t}" ]] && cp -f "${root}/tests/testdata/${path}" "${corpus}/capture_$(basename "${path}")"
  done < <(grep -v '^#' "${fuzz_dir}/seed_captures.txt")
  extra_dirs=()
  for d in "${fuzz_dir}/seeds/${t}" "${fuzz_dir}/regressions/${t}"; do
    [[ -d "${d}" ]] && extra_dirs+=("${d}")
  done
  dict=()
  [[ -f "${fuzz_dir}/dict/${t}.dict" ]] && dict=("-dict=${fuzz_dir}/dict/${t}.dict")
  echo "== fuzz_${t}: ${seconds} s (log ${log#"${root}/"})"
  # The first directory is the one libFuzzer writes new inputs to.
  set +e
  "${build}/tests/fuzz/fuzz_${t}" "${corpus}" "${extra_dirs[@]}" "${dict[@]}" \
    -max_total_time="${seconds}" -timeout=10 -rss_limit_mb=2048 -max_len=16384 \
    -artifact_prefix="${artifacts}/" -print_final_stats=1 > "${log}" 2>&1
  rc=$?
  set -e
  stats="$(grep -E '^stat::(number_of_executed_units|peak_rss_mb)' "${log}" | tr '\n' ' ')"
  last="$(grep -E '^#[0-9]+' "${log}" | tail -1)"
  summary+=("${t}: rc=${rc} ${last} ${stats}")
  shopt -s nullglob
  crashes=("${artifacts}"/crash-* "${artifacts}"/timeout-* "${artifacts}"/oom-* \
    "${artifacts}"/leak-* "${artifacts}"/slow-unit-*)
  shopt -u nullglob
  if ((rc != 0 || ${#crashes[@]})); then
    found=1
    mkdir -p "${fuzz_dir}/regressions/${t}"
    for c in "${crashes[@]}"; do cp -f "${c}" "${fuzz_dir}/regressions/${t}/"; done
    echo "!! fuzz_${t} found ${#crashes[@]} input(s) (rc=${rc}); copied to tests/fuzz/regressions/${t}/" >&2
    grep -E 'ERROR|invariant broken|SUMMARY' "${log}" | head -5 >&2 || true
  fi
done

echo
printf '%s\n' "${summary[@]}"
exit "${found}"
