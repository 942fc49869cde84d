#!/usr/bin/env bash
# npm run test:fuzz - builds the libFuzzer targets (native/tools/fuzz_*.cpp; clang, ASan+UBSan, build-fuzz/), replays
# the regression inputs in test/fixtures/regressions/ (files named <target>-*.bin go to that target, others to
# fuzz_decode), seeds a corpus from every capture in test/fixtures/pcaps/ (in a temp dir) plus any seed folder
# test/fixtures/fuzz/<target>/, and fuzzes DecodePacket for FUZZ_SECONDS (default 60) and each other target for
# FUZZ_APP_SECONDS (default 20). Exits non-zero on any finding; the crashing input is left in
# $FUZZ_ARTIFACTS (default build-fuzz/artifacts/): copy it into test/fixtures/regressions/ once fixed.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
seconds="${FUZZ_SECONDS:-60}"
build="$root/build-fuzz"
artifacts="${FUZZ_ARTIFACTS:-$build/artifacts}"

if ! command -v clang++ >/dev/null 2>&1; then
  echo "test:fuzz: clang++ is required for libFuzzer (Debian/Ubuntu: apt-get install clang)" >&2
  exit 1
fi

# A build dir configured earlier with another compiler keeps it in its cache: start that one afresh.
if [[ -f "$build/CMakeCache.txt" ]] && ! grep -q '^CMAKE_CXX_COMPILER:.*clang++' "$build/CMakeCache.txt"; then
  rm -rf "$build/CMakeCache.txt" "$build/CMakeFiles"
fi
CC=clang CXX=clang++ cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DVIGIL_ADDON=OFF -DVIGIL_FUZZ=ON >/dev/null
targets=()
for src in "$root"/native/tools/fuzz_*.cpp; do targets+=("$(basename "$src" .cpp)"); done
cmake --build "$build" --target "${targets[@]}" decode_pcap -j 2 >/dev/null
app_seconds="${FUZZ_APP_SECONDS:-20}"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/seeds" "$artifacts"

export ASAN_OPTIONS="halt_on_error=1:abort_on_error=1:detect_leaks=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"

# 1. Known crashers and tricky inputs must stay fixed: <target>-*.bin to that target, anything else to fuzz_decode.
shopt -s nullglob
for target in "${targets[@]}"; do
  if [[ "$target" == fuzz_decode ]]; then
    regressions=()
    for f in "$root"/test/fixtures/regressions/*.bin; do
      [[ "$(basename "$f")" == fuzz_* ]] || regressions+=("$f")
    done
  else
    regressions=("$root"/test/fixtures/regressions/"$target"-*.bin)
  fi
  ((${#regressions[@]} > 0)) || continue
  "$build/$target" -runs=1 "${regressions[@]}" >/dev/null 2>"$work/regressions.log" || {
    cat "$work/regressions.log" >&2
    echo "test:fuzz: a regression input of $target fails again" >&2
    exit 1
  }
  echo "test:fuzz: $target: ${#regressions[@]} regression inputs replayed clean" >&2
done

# 2. Seeds from the fixture captures (the expected libpcap open error for the 126-IDB pcapng is not a failure).
"$build/decode_pcap" --seeds "$work/seeds" "$root"/test/fixtures/pcaps/*.pcap "$root"/test/fixtures/pcaps/*.pcapng \
  >/dev/null 2>"$work/seeds.log" || grep -v 'snapshot length' "$work/seeds.log" >&2 || true
echo "test:fuzz: $(ls "$work/seeds" | wc -l) frame seeds; targets: ${targets[*]}" >&2

# 3. Fuzz each target. Frame-level targets (fuzz_decode, fuzz_app) start from the capture seeds; a parser's target
# from its own seed folder. New corpus entries go to a temp corpus; any crash, leak, timeout or OOM fails the run.
for target in "${targets[@]}"; do
  mkdir -p "$work/corpus-$target"
  seed_dirs=()
  case "$target" in
    fuzz_decode | fuzz_app) seed_dirs+=("$work/seeds") ;;
  esac
  [[ -d "$root/test/fixtures/fuzz/$target" ]] && seed_dirs+=("$root/test/fixtures/fuzz/$target")
  t="$app_seconds"
  [[ "$target" == fuzz_decode ]] && t="$seconds"
  if ! "$build/$target" -max_total_time="$t" -timeout=5 -rss_limit_mb=2048 -max_len=4096 \
      -print_final_stats=1 -artifact_prefix="$artifacts/$target-" "$work/corpus-$target" "${seed_dirs[@]}" \
      2>"$work/fuzz.log"; then
    tail -n 60 "$work/fuzz.log" >&2
    echo "test:fuzz: FINDING in $target - input saved under $artifacts/" >&2
    exit 1
  fi
  grep -E '^stat::(number_of_executed_units|new_units_added|peak_rss_mb)|cov:' "$work/fuzz.log" | tail -n 4 >&2
  echo "test:fuzz: $target: no finding in ${t}s" >&2
done
