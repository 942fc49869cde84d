#!/usr/bin/env bash
# npm run test:asan - builds the native core with AddressSanitizer + UBSan (build-asan/, no addon) and replays every
# capture in test/fixtures/pcaps/ through each native replay tool that exists (vigil_replay: decode -> flows ->
# features; decode_pcap: decode only). Fails on any sanitizer report or unexpected tool failure. The one expected
# failure: libpcap 1.10 cannot read zeek_pcapng_126_idbs_mixed_linktypes.pcapng (per-interface snapshot lengths);
# the tool must say so clearly and exit non-zero, which counts as a pass for that file. Then stage_check (the encoder
# stage's checks) under ASan+UBSan, and under ThreadSanitizer from a build of its own (build-tsan/); and window_check
# (mapped file windows and their SIGBUS handler) under ASan+UBSan.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$root/build-asan"
expected_unreadable="zeek_pcapng_126_idbs_mixed_linktypes.pcapng"

cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Debug -DVIGIL_SANITIZE=ON -DVIGIL_ADDON=OFF >/dev/null
tools=()
for name in vigil_replay decode_pcap; do
  [[ -f "$root/native/tools/$name.cpp" ]] && tools+=("$name")
done
cmake --build "$build" --target "${tools[@]}" stage_check window_check -j 2 >/dev/null

export ASAN_OPTIONS="halt_on_error=1:abort_on_error=1:detect_leaks=1:exitcode=86"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:exitcode=86"
asan_reports='AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|runtime error:'

log="$(mktemp)"
trap 'rm -f "$log"' EXIT
failures=0
runs=0
shopt -s nullglob
for tool in "${tools[@]}"; do
  for file in "$root"/test/fixtures/pcaps/*.pcap "$root"/test/fixtures/pcaps/*.pcapng "$root"/test/fixtures/pcaps/*/*.pcap \
    "$root"/test/fixtures/pcaps/*/*.pcapng; do
    base="$(basename "$file")"
    runs=$((runs + 1))
    status=0
    "$build/$tool" "$file" >/dev/null 2>"$log" || status=$?
    if grep -qE "$asan_reports" "$log"; then
      echo "test:asan: $tool $base: SANITIZER REPORT" >&2
      cat "$log" >&2
      failures=$((failures + 1))
    elif [[ "$base" == "$expected_unreadable" ]]; then
      if [[ $status -eq 0 ]] || ! grep -q 'snapshot length' "$log"; then
        echo "test:asan: $tool $base: expected a clear libpcap error (exit $status):" >&2
        cat "$log" >&2
        failures=$((failures + 1))
      fi
    elif [[ $status -ne 0 ]]; then
      echo "test:asan: $tool $base: exit $status" >&2
      cat "$log" >&2
      failures=$((failures + 1))
    fi
  done
done

# Every prefix of every fixture packet (up to 2048 bytes, then the whole packet) through decode, flows and the
# application layer: each parser meets every snap-length cut of real traffic.
prefix_files=()
for file in "$root"/test/fixtures/pcaps/*.pcap "$root"/test/fixtures/pcaps/*.pcapng "$root"/test/fixtures/pcaps/*/*.pcap \
  "$root"/test/fixtures/pcaps/*/*.pcapng; do
  [[ "$(basename "$file")" == "$expected_unreadable" ]] || prefix_files+=("$file")
done
# One more checked run: LABEL, the reports (an extended regexp) that fail it besides a non-zero exit, the command.
checked_run() {
  local label="$1" reports="$2" status=0
  shift 2
  runs=$((runs + 1))
  "$@" >/dev/null 2>"$log" || status=$?
  if [[ $status -ne 0 ]] || grep -qE "$reports" "$log"; then
    echo "test:asan: $label: exit $status" >&2
    cat "$log" >&2
    failures=$((failures + 1))
  fi
}
checked_run "vigil_replay --prefixes (${#prefix_files[@]} files)" "$asan_reports" "$build/vigil_replay" --prefixes "${prefix_files[@]}"

# The encoder stage (a fast replay's encoder thread) driven as the capture thread drives it, with a consumer checking
# order and hand-back: under ASan+UBSan, and under ThreadSanitizer (its own build, build-tsan/, this one tool).
checked_run stage_check "$asan_reports" "$build/stage_check" 50000
# Mapped file windows: a file cut under one reads zeros. ASan's own SIGBUS handler is off here, so that a SIGBUS that
# is not a window's ends the child as it would without ASan (what the tool checks).
scratch="$(mktemp -d)"
checked_run window_check "$asan_reports" env ASAN_OPTIONS="$ASAN_OPTIONS:handle_sigbus=0" "$build/window_check" "$scratch"
rm -rf "$scratch"
tsan_build="$root/build-tsan"
cmake -S "$root" -B "$tsan_build" -DCMAKE_BUILD_TYPE=Debug -DVIGIL_SANITIZE_THREAD=ON -DVIGIL_ADDON=OFF >/dev/null
cmake --build "$tsan_build" --target stage_check -j 2 >/dev/null
checked_run "stage_check under ThreadSanitizer" ThreadSanitizer \
  env TSAN_OPTIONS="halt_on_error=1:exitcode=86" "$tsan_build/stage_check" 50000

if ((failures > 0)); then
  echo "test:asan: $failures of $runs runs failed" >&2
  exit 1
fi
echo "test:asan: $runs runs (${tools[*]} replays, every packet prefix, stage_check, window_check) clean under ASan+UBSan, and stage_check under TSan" >&2
