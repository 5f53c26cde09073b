#!/usr/bin/env python3
"""Times `gpucc FILE.c --recipe R.lua` (compile) and `gpucc verify FILE.c --recipe R.lua`
(compile and check on the CPU) on every case of testsuite/cuda/, and writes the medians
to benchmarks/results/compile-time-<date>-<commit>.json with the machine, date and commit.

Usage: cargo build --release && python3 benchmarks/compile_time.py [--runs N]
"""
import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time

from deps_time import ROOT, case_args, cpu_model


def timed(cmd, runs):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(cmd, cwd=ROOT, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times.append((time.perf_counter() - start) * 1000)
    return times


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--gpucc", default=os.path.join(ROOT, "target", "release", "gpucc"))
    args = parser.parse_args()
    if not os.path.exists(args.gpucc):
        sys.exit(f"{args.gpucc} not found: run `cargo build --release` first")

    cases_dir = os.path.join(ROOT, "testsuite", "cuda")
    results = []
    with tempfile.TemporaryDirectory() as scratch:
        for name in sorted(os.listdir(cases_dir)):
            if not name.endswith(".c"):
                continue
            path = os.path.join("testsuite", "cuda", name)
            options = case_args(os.path.join(ROOT, path))
            out = os.path.join(scratch, name + ".cu")
            compile_ms = timed([args.gpucc, path] + options + ["-o", out], args.runs)
            verify_ms = timed([args.gpucc, "verify", path] + options, 1)
            recipe = options[options.index("--recipe") + 1]
            results.append({
                "case": name,
                "recipe": recipe,
                "compile_median_ms": round(statistics.median(compile_ms), 1),
                "compile_min_ms": round(min(compile_ms), 1),
                "verify_ms": round(verify_ms[0], 1),
            })
            r = results[-1]
            print(f"{name:30} compile {r['compile_median_ms']:8.1f} ms   verify {r['verify_ms']:8.1f} ms")

    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                            capture_output=True, text=True).stdout.strip() or "unknown"
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT,
                           capture_output=True, text=True).stdout.strip() != ""
    date = datetime.date.today().isoformat()
    doc = {
        "benchmark": "gpucc compile (median) and gpucc verify --recipe (one run), wall time per process, release build",
        "date": date,
        "commit": commit + ("-dirty" if dirty else ""),
        "machine": {"cpu": cpu_model(), "cores": os.cpu_count(), "os": platform.platform()},
        "compile_runs_per_case": args.runs,
        "cases": results,
    }
    out = os.path.join(ROOT, "benchmarks", "results", f"compile-time-{date}-{commit}.json")
    with open(out, "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")
    print(f"wrote {os.path.relpath(out, ROOT)}")


if __name__ == "__main__":
    main()
