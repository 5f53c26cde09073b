#!/usr/bin/env python3
"""Times again, alone, the programs a fuzzing campaign found slow (`slow-*.c` in its
findings directory, written by the nest fuzzer for programs over 10 s beside the other
work of the campaign): each compiled and checked as the fuzzer does, `gpucc FILE.c` with
the sizes its first line names, one at a time. Records the seconds and exit code of each.
Results: benchmarks/results/fuzz-slow-retimed-<date>-<commit>.json, with the machine.

Usage: cargo build --release && python3 benchmarks/fuzz_retime.py FINDINGS_DIR
           [--campaign TEXT] [--gpucc PATH] [--label TEXT]
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

from deps_time import ROOT, commit_label, cpu_model, write_result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("findings", help="the campaign's findings directory")
    parser.add_argument("--campaign", default="", help="what the campaign was, for the record")
    parser.add_argument("--gpucc", default=os.path.join(ROOT, "target", "release", "gpucc"))
    parser.add_argument("--label", help="the commit label to record (default: this tree's)")
    args = parser.parse_args()
    if not os.path.exists(args.gpucc):
        sys.exit(f"{args.gpucc} not found: run `cargo build --release` first")
    names = sorted(n for n in os.listdir(args.findings) if n.startswith("slow-") and n.endswith(".c"))
    if not names:
        sys.exit(f"no slow-*.c in {args.findings}")
    results = []
    with tempfile.TemporaryDirectory() as scratch:
        for k, name in enumerate(names):
            path = os.path.join(args.findings, name)
            with open(path) as f:
                first = f.readline()
            m = re.search(r"gpucc FILE\.c(.*?)\*/", first)
            extra = m.group(1).split() if m else []
            out = os.path.join(scratch, name + ".cu")
            start = time.perf_counter()
            p = subprocess.run([args.gpucc, path, "-o", out] + extra, cwd=scratch,
                               capture_output=True, text=True)
            seconds = time.perf_counter() - start
            results.append({"program": name, "args": " ".join(extra),
                            "seconds": round(seconds, 2), "exit": p.returncode})
            print(f"{k + 1:4}/{len(names)} {name:40} {seconds:6.2f} s  exit {p.returncode}",
                  flush=True)
    times = [r["seconds"] for r in results]
    summary = {
        "programs": len(results),
        "median_s": round(statistics.median(times), 2),
        "max_s": max(times),
        "over_10_s": sum(t > 10 for t in times),
        "nonzero_exit": sum(r["exit"] != 0 for r in results),
    }
    print(summary)
    date = datetime.date.today().isoformat()
    commit = args.label or commit_label()
    doc = {
        "benchmark": "the programs a nest-fuzzer campaign found over 10 s while the machine did"
                     " other work, each run again alone with the check (gpucc FILE.c and the"
                     " sizes its first line names), release build. Campaign: " + args.campaign,
        "date": date,
        "commit": commit,
        "machine": {"cpu": cpu_model(), "cores": os.cpu_count(), "os": platform.platform()},
        "summary": summary,
        "results": sorted(results, key=lambda r: -r["seconds"]),
    }
    path = write_result("fuzz-slow-retimed", date, commit, doc)
    print(f"wrote {os.path.relpath(path, ROOT)}")


if __name__ == "__main__":
    main()
