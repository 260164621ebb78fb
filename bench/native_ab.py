#!/usr/bin/env python3
"""Two native scalelab_bench builds alternated (A, B, A, B, ...) on the numbers-only decode and
serving evaluations: a shared machine's load drifts over seconds, and runs made back to back meet
the same load. Prints each build's median and best evaluations/s (Google Benchmark's items/s).

    python3 bench/native_ab.py A/scalelab_bench B/scalelab_bench [ROUNDS]    (default 10 rounds)

A is typically an older revision built in a worktree (git worktree add OLD REV; cmake -S OLD -B
OLD/build -DCMAKE_BUILD_TYPE=Release; cmake --build OLD/build --target scalelab_bench).
"""
import re
import statistics
import subprocess
import sys


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    builds, rounds = sys.argv[1:3], int(sys.argv[3]) if len(sys.argv) == 4 else 10
    rates = {b: {} for b in builds}
    for _ in range(rounds):
        for b in builds:
            out = subprocess.run([b, "--benchmark_filter=^numbers/(decode|serving)$", "--benchmark_min_time=0.2"],
                                 capture_output=True, text=True, check=True).stdout
            for m in re.finditer(r"numbers/(\w+)\s.*items_per_second=([\d.]+)k/s", out):
                rates[b].setdefault(m.group(1), []).append(float(m.group(2)))
    for b in builds:
        figures = "  ".join(f"{name}: median {statistics.median(v):.1f}k/s, best {max(v):.1f}k/s"
                            for name, v in rates[b].items())
        print(f"{b}  {figures}")


if __name__ == "__main__":
    main()
