#!/usr/bin/env python3
"""Repeats what failed in a `swift test` log, for the end of CI's output (which shows only the run's tail).

Printed: every recorded issue and failed test with a few lines after it; when the test process crashed, the
crash's headline, the crashed thread's frames and registers' first line, and the tests that had started and not
ended at that moment (one of them, or what it left running, is where to look).
"""

import re
import sys

STARTED = re.compile(r'^\S+ (Test|Suite) (".*?"|\S+) started\.$')
ENDED = re.compile(r'^\S+ (Test|Suite) (".*?"|\S+) (passed|failed|skipped)')
FAILURE = re.compile(r"recorded an issue|✘ Test .* failed|[Ff]atal error:|Assertion failed|Precondition failed|error: Process ")


def main(path: str) -> None:
    with open(path, encoding="utf-8", errors="replace") as file:
        lines = [re.sub(r"\x1b\[[0-9;]*m", "", line.rstrip("\n")) for line in file]

    shown = 0
    for index, line in enumerate(lines):
        if FAILURE.search(line) and shown < 150:
            block = lines[index : index + 5]
            print("\n".join(block))
            print("--")
            shown += len(block) + 1

    crash = next((i for i, line in enumerate(lines) if line.startswith("*** Program crashed")), None)
    if crash is None:
        return
    print()
    print("==== the test process crashed ====")
    print(lines[crash])
    crashed = next((i for i in range(crash, len(lines)) if re.match(r"^Thread \d+ .*crashed:$", lines[i])), None)
    if crashed is not None:
        end = next(
            (i for i in range(crashed + 1, len(lines)) if re.match(r"^(Thread \d+|Registers:)", lines[i])),
            len(lines),
        )
        print("\n".join(lines[crashed : min(end, crashed + 70)]))
    in_flight: dict[str, str] = {}
    for line in lines[:crash]:
        if (match := STARTED.match(line)) and match.group(2) != "run":
            in_flight[match.group(2)] = match.group(1)
        elif match := ENDED.match(line):
            in_flight.pop(match.group(2), None)
    print(f"---- started and not ended when it crashed ({len(in_flight)}) ----")
    for name, kind in list(in_flight.items())[:60]:
        print(f"{kind} {name}")


if __name__ == "__main__":
    main(sys.argv[1])
