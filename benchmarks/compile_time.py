#!/usr/bin/env python3
"""Times gpucc's compile (`--no-verify`, median of --runs) on every testsuite kernel: the
cases of testsuite/cuda/ with their recipes, and the kernels of testsuite/strategy/kernels/
without one (gpucc ranks its own variants: the candidates it ranked, those it compiled
(the others skipped by their lower bound, none of which could win) and both per second
are recorded). With --verify, also one run of `gpucc verify` per recipe case.
Results: benchmarks/results/compile-time-<date>-<commit>.json, with the machine.

Usage: cargo build --release && python3 benchmarks/compile_time.py [--runs N] [--verify]
           [--gpucc PATH] [--label TEXT]
"""
import argparse
import datetime
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time

from deps_time import ROOT, case_args, commit_label, cpu_model, write_result


def timed(cmd, runs):
    """Wall times in ms of `runs` runs of `cmd`, and the last run's standard error."""
    times, err = [], ""
    for _ in range(runs):
        start = time.perf_counter()
        p = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           text=True)
        times.append((time.perf_counter() - start) * 1000)
        if p.returncode != 0:
            sys.exit(f"{' '.join(cmd)} failed (exit {p.returncode}):\n{p.stderr}")
        err = p.stderr
    return times, err


def cases():
    """(kind, path) of every testsuite kernel: recipe cases, then strategy kernels."""
    for kind, folder in [("recipe", "cuda"), ("strategy", os.path.join("strategy", "kernels"))]:
        directory = os.path.join(ROOT, "testsuite", folder)
        for name in sorted(os.listdir(directory)):
            if name.endswith(".c"):
                yield kind, os.path.join("testsuite", folder, name)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--verify", action="store_true",
                        help="also time one `gpucc verify` of each recipe case")
    parser.add_argument("--gpucc", default=os.path.join(ROOT, "target", "release", "gpucc"))
    parser.add_argument("--label", help="the commit label to record (default: this tree's)")
    args = parser.parse_args()
    if not os.path.exists(args.gpucc):
        sys.exit(f"{args.gpucc} not found: run `cargo build --release` first")

    results = []
    with tempfile.TemporaryDirectory() as scratch:
        for kind, path in cases():
            options = case_args(os.path.join(ROOT, path))
            out = os.path.join(scratch, os.path.basename(path) + ".cu")
            ms, err = timed([args.gpucc, path] + options + ["--no-verify", "-o", out], args.runs)
            r = {"case": path, "kind": kind,
                 "compile_median_ms": round(statistics.median(ms), 1),
                 "compile_min_ms": round(min(ms), 1)}
            # `among 28 candidates (23 compiled, 5 skipped by their lower bound)`: the
            # candidates ranked, compiled or skipped by the bound (none could win).
            m = re.search(r"among (\d+) candidates(?: \((\d+) compiled)?", err)
            if m:
                r["candidates"] = int(m.group(1))
                r["compiled"] = int(m.group(2) or m.group(1))
                r["candidates_per_s"] = round(r["candidates"] / (r["compile_median_ms"] / 1000), 1)
                r["compiled_per_s"] = round(r["compiled"] / (r["compile_median_ms"] / 1000), 1)
            if args.verify and kind == "recipe":
                r["verify_ms"] = round(timed([args.gpucc, "verify", path] + options, 1)[0][0], 1)
            results.append(r)
            extra = (f"  {r['candidates']:3} candidates, {r['candidates_per_s']:6.1f}/s"
                     if "candidates" in r else "")
            print(f"{path:52} {r['compile_median_ms']:8.1f} ms{extra}", flush=True)

    times = [r["compile_median_ms"] for r in results]
    ranked = [r for r in results if "candidates" in r]
    summary = {
        "cases": len(results),
        "median_ms": round(statistics.median(times), 1),
        "max_ms": max(times),
        "over_1s": sum(t > 1000 for t in times),
        "candidates_per_s_overall": round(sum(r["candidates"] for r in ranked)
                                          / (sum(r["compile_median_ms"] for r in ranked) / 1000), 1)
        if ranked else None,
        "compiled_per_s_overall": round(sum(r["compiled"] for r in ranked)
                                        / (sum(r["compile_median_ms"] for r in ranked) / 1000), 1)
        if ranked else None,
    }
    print(f"{summary['cases']} kernels: median {summary['median_ms']} ms, max {summary['max_ms']} ms,"
          f" {summary['over_1s']} over 1 s; ranking {summary['candidates_per_s_overall']}"
          f" candidates per second overall ({summary['compiled_per_s_overall']} compiled)")
    date = datetime.date.today().isoformat()
    commit = args.label or commit_label()
    doc = {
        "benchmark": "gpucc compile (--no-verify, median of runs), wall time per process, release"
                     " build: testsuite/cuda cases with their recipes, testsuite/strategy kernels"
                     " ranked without one",
        "date": date,
        "commit": commit,
        "machine": {"cpu": cpu_model(), "cores": os.cpu_count(), "os": platform.platform()},
        "compile_runs_per_case": args.runs,
        "summary": summary,
        "cases": results,
    }
    path = write_result("compile-time", date, commit, doc)
    print(f"wrote {os.path.relpath(path, ROOT)}")


if __name__ == "__main__":
    main()
