#!/usr/bin/env bash
# Builds the libFuzzer target and runs it for SECONDS (default 60) on the seed corpus; exits non-zero on a crash.
set -euo pipefail
cd "$(dirname "$0")"
seconds="${1:-60}"
# SwiftPM keeps its build plan for a path dependency and does not see a file added to one of its targets later: a warm
# checkout's build then fails with "cannot find ... in scope". The plan is dropped when pizzad's source files changed.
sources="$(find ../../Sources -type f | sort | sha256sum)"
if [ "$(cat .build/pizzad-sources 2>/dev/null)" != "$sources" ]; then rm -f .build/release.yaml .build/build.db; fi
swift build -c release --product pizzafuzz \
  -Xswiftc -sanitize=fuzzer,address -Xcc -fsanitize=fuzzer-no-link -Xswiftc -use-ld=lld
echo "$sources" > .build/pizzad-sources
work="$(mktemp -d)"
cp corpus/* "$work/"
"$(swift build -c release --show-bin-path)/pizzafuzz" -max_total_time="$seconds" -max_len=4096 -timeout=10 \
  -detect_leaks=0 -print_final_stats=1 "$work"
rm -rf "$work"
