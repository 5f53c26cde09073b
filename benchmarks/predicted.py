#!/usr/bin/env python3
"""gpucc's own choice (no recipe) for every kernel of testsuite/strategy/kernels/ and, with
a PolyBench/C 4.2.1 checkout, every PolyBench benchmark: the time the emulator predicts for
it (emulated, not measured: no GPU is involved) and the compile's wall time, for one gpucc
build or two side by side (a change to the strategy generator, before and after).
Results: benchmarks/results/predicted-<date>-<commit>.json, with the machine.

Usage: cargo build --release && python3 benchmarks/predicted.py [--before PATH]
           [--gpucc PATH] [--polybench DIR [--dataset LARGE]] [--label TEXT]
"""
import argparse
import datetime
import glob
import math
import os
import platform
import re
import subprocess
import sys
import tempfile
import time

from deps_time import ROOT, case_args, commit_label, cpu_model, write_result

UNITS = {"us": 1.0, "ms": 1e3, "s": 1e6}


def cases(polybench, dataset):
    for path in sorted(glob.glob(os.path.join(ROOT, "testsuite", "strategy", "kernels", "*.c"))):
        yield os.path.relpath(path, ROOT), case_args(path)
    if not polybench:
        return
    for line in open(os.path.join(polybench, "utilities", "benchmark_list")):
        name = line.strip()
        if not name:
            continue
        path = os.path.join(polybench, name)
        yield ("polybench/" + os.path.basename(name), [
            path, "-I", os.path.join(polybench, "utilities"), "-I", os.path.dirname(path),
            "-DPOLYBENCH_USE_SCALAR_LB", f"-D{dataset}_DATASET", "-DPOLYBENCH_DUMP_ARRAYS"])


def predict(gpucc, label, options, scratch):
    """The predicted microseconds (None if it did not compile) and the wall seconds."""
    # A PolyBench benchmark's options start with its path.
    source = [] if label.startswith("polybench/") else [label]
    out = os.path.join(scratch, "out.cu")
    start = time.perf_counter()
    p = subprocess.run([gpucc] + source + options + ["--no-verify", "-o", out],
                       cwd=ROOT, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    m = re.search(r"predicted ([\d.]+) (us|ms|s) ", p.stderr)
    return (float(m.group(1)) * UNITS[m.group(2)] if m and p.returncode == 0 else None), seconds


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gpucc", default=os.path.join(ROOT, "target", "release", "gpucc"))
    parser.add_argument("--before", help="another gpucc build to compare with, run beside it")
    parser.add_argument("--polybench", help="a PolyBench/C 4.2.1 checkout")
    parser.add_argument("--dataset", default="LARGE")
    parser.add_argument("--label", help="the commit label to record (default: this tree's)")
    args = parser.parse_args()
    builds = ([("before", args.before)] if args.before else []) + [("after", args.gpucc)]
    for _, path in builds:
        if not os.path.exists(path):
            sys.exit(f"{path} not found: run `cargo build --release` first")

    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        for label, options in cases(args.polybench, args.dataset):
            row = {"case": label}
            for name, path in builds:
                us, s = predict(path, label, options, scratch)
                row[f"{name}_predicted_us"] = None if us is None else round(us, 1)
                row[f"{name}_compile_s"] = round(s, 2)
            rows.append(row)
            shown = "  ".join(
                f"{name} {row[f'{name}_predicted_us']} us in {row[f'{name}_compile_s']:.2f} s"
                for name, _ in builds)
            print(f"{label:44} {shown}", flush=True)

    summary = {"cases": len(rows)}
    if args.before:
        pairs = [(r["before_predicted_us"], r["after_predicted_us"]) for r in rows
                 if r["before_predicted_us"] and r["after_predicted_us"]]
        summary["changed"] = sum(a != b for a, b in pairs)
        summary["faster"] = sum(b < a for a, b in pairs)
        summary["slower"] = sum(b > a for a, b in pairs)
        summary["geomean_after_over_before"] = round(
            math.exp(sum(math.log(b / a) for a, b in pairs) / len(pairs)), 4)
        summary["compile_s_before"] = round(sum(r["before_compile_s"] for r in rows), 1)
        summary["compile_s_after"] = round(sum(r["after_compile_s"] for r in rows), 1)
        print(f"{summary['changed']} of {len(pairs)} predictions changed ({summary['faster']} faster,"
              f" {summary['slower']} slower), geometric mean after/before"
              f" {summary['geomean_after_over_before']}; compiles {summary['compile_s_before']} s"
              f" -> {summary['compile_s_after']} s in all")
    date = datetime.date.today().isoformat()
    commit = args.label or commit_label()
    doc = {
        "benchmark": "gpucc's choice without a recipe: the emulator's predicted time (emulated,"
                     " not measured) and the compile's wall time (--no-verify, one run each)",
        "date": date,
        "commit": commit,
        "device": "NVIDIA H100 SXM5 80GB (gpucc's description; emulated)",
        "machine": {"cpu": cpu_model(), "cores": os.cpu_count(), "os": platform.platform()},
        "builds": {name: path for name, path in builds},
        "polybench_dataset": args.dataset if args.polybench else None,
        "summary": summary,
        "cases": rows,
    }
    path = write_result("predicted", date, commit, doc)
    print(f"wrote {os.path.relpath(path, ROOT)}")


if __name__ == "__main__":
    main()
