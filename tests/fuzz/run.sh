#!/usr/bin/env bash
# run.sh FUZZER SECONDS SEED_DIR... : runs a libFuzzer target for SECONDS with the seed
# directories (read, never written: new inputs go to a temporary corpus, removed after; the
# target's own temporary files go into the same directory, its TMPDIR) and
# the target's dictionary (tests/fuzz/NAME.dict for fuzz_NAME), limits of 10 s and 4 GB an
# input (4 GB: AddressSanitizer and coverage make a run several times slower and larger than the
# tool's; tests/limits.cpp holds the tool itself to 5 s and 1 GB), inputs of up to 16 KB
# ($MFPRIO_FUZZ_MAX_LEN bytes when set: whole bundles are larger). A
# finding is written to $MFPRIO_FUZZ_ARTIFACTS (default: the current directory) and fails the
# run. Exit status: the fuzzer's (0: no finding).
# A longer campaign: tests/fuzz/run.sh build-ci-clang/tests/fuzz_maui_cfg 3600 tests/data/*/
# A campaign of a number of executions: MFPRIO_FUZZ_RUNS=1000000 (then SECONDS is only a
# backstop); in an optimized build (-O2 with AddressSanitizer and UBSan) with
# MFPRIO_FUZZ_FLAGS=-entropic=0 (libFuzzer's scheduling otherwise costs more than a bundle).
set -uo pipefail
fuzzer=$1 seconds=$2
shift 2
work=$(mktemp -d "${TMPDIR:-/tmp}/mfprio-fuzz.XXXXXX")
corpus=$work/corpus
mkdir "$corpus"
artifacts=${MFPRIO_FUZZ_ARTIFACTS:-$PWD}
# The format's keywords: tests/fuzz/NAME.dict for the target fuzz_NAME.
name=$(basename "$fuzzer")
dict=$(dirname "$0")/${name#fuzz_}.dict
dict_arg=()
[ -f "$dict" ] && dict_arg=(-dict="$dict")
# A smaller quarantine than AddressSanitizer's 256 MB: inputs near the readers' bounds (200000
# nodes) free much memory, and the quarantine would count it against the limit.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=64"
TMPDIR=$work "$fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 -max_len="${MFPRIO_FUZZ_MAX_LEN:-16384}" -print_final_stats=1 \
    ${MFPRIO_FUZZ_RUNS:+-runs="$MFPRIO_FUZZ_RUNS"} ${MFPRIO_FUZZ_FLAGS:-} "${dict_arg[@]}" -artifact_prefix="$artifacts/" "$corpus" "$@"
status=$?
rm -rf "$work"
exit "$status"
