#!/usr/bin/env bash
# Builds the libFuzzer target and runs it for SECONDS (default 60) on the seed corpus; exits non-zero on a crash.
set -euo pipefail
cd "$(dirname "$0")"
seconds="${1:-60}"
swift build -c release --product pizzafuzz \
  -Xswiftc -sanitize=fuzzer,address -Xcc -fsanitize=fuzzer-no-link -Xswiftc -use-ld=lld
work="$(mktemp -d)"
cp corpus/* "$work/"
"$(swift build -c release --show-bin-path)/pizzafuzz" -max_total_time="$seconds" -max_len=4096 -timeout=10 \
  -detect_leaks=0 -print_final_stats=1 "$work"
rm -rf "$work"
