#!/usr/bin/env python3
"""How good gpucc's register estimate is: for every kernel of the testsuite's recipe cases
(testsuite/cuda/*.c and testsuite/recipe/*.lua), the registers per thread ptxas reports
(`gpucc emulate --json`, which compiles the .cu with nvcc for sm_90) against the estimate
the strategy generator ranks with. Needs NVIDIA's compiler (scripts/install-cuda-toolchain);
no GPU.

Writes benchmarks/results/registers-<date>-<commit>.json (machine, date, commit, toolchain,
every kernel) and prints the mean absolute error of the estimate, and of the best
`base + slope x register-tile words` fitted by least squares on the same data.

Usage: cargo build --release && python3 benchmarks/registers.py
"""
import argparse
import datetime
import glob
import json
import os
import platform
import statistics
import subprocess
import sys

from deps_time import ROOT, case_args, commit_label, cpu_model, write_result


def cases():
    for c in sorted(glob.glob(os.path.join(ROOT, "testsuite/cuda/*.c"))):
        yield os.path.relpath(c, ROOT), case_args(c)
    for r in sorted(glob.glob(os.path.join(ROOT, "testsuite/recipe/*.lua"))):
        args = case_args(r)
        if not args:
            continue
        yield args[0], ["--recipe", os.path.relpath(r, ROOT)] + args[1:]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gpucc", default=os.path.join(ROOT, "target", "release", "gpucc"))
    args = parser.parse_args()
    if not os.path.exists(args.gpucc):
        sys.exit(f"{args.gpucc} not found: run `cargo build --release` first")
    commit = commit_label()
    rows = []
    for path, extra in cases():
        cmd = [args.gpucc, "emulate", path] + extra + ["--json"]
        r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
        if r.returncode != 0:
            print(f"skipped {' '.join(cmd[1:])}: {r.stderr.strip().splitlines()[-1:]}",
                  file=sys.stderr)
            continue
        v = json.loads(r.stdout)
        if v["registers"] != "ptxas":
            sys.exit("ptxas did not run: install the toolchain (scripts/install-cuda-toolchain)")
        for k in v["kernels"]:
            rows.append({
                "case": " ".join([path] + extra),
                "kernel": k["name"],
                "ptxas": k["registers_per_thread"],
                "estimate": k["registers_estimate"],
                "register_copy_words": k["register_copy_words"],
                "threads_per_block": k["threads_per_block"],
            })
        print(f"{path} {' '.join(extra)}: " + ", ".join(
            f"{k['name']} {k['registers_per_thread']} (estimate {k['registers_estimate']})"
            for k in v["kernels"]), file=sys.stderr)
    errors = [abs(r["estimate"] - r["ptxas"]) for r in rows]
    # Least squares for ptxas ~ base + slope * words.
    xs = [r["register_copy_words"] for r in rows]
    ys = [r["ptxas"] for r in rows]
    mx, my = statistics.mean(xs), statistics.mean(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx if sxx else 0.0
    base = my - slope * mx
    fitted = [abs(base + slope * x - y) for x, y in zip(xs, ys)]
    summary = {
        "kernels": len(rows),
        "estimate_mean_abs_error": statistics.mean(errors),
        "estimate_mean_signed_error": statistics.mean(r["estimate"] - r["ptxas"] for r in rows),
        "fit": {"base": base, "slope_per_register_copy_word": slope,
                "mean_abs_error": statistics.mean(fitted)},
        "ptxas_median": statistics.median(ys),
    }
    nvcc = subprocess.run([os.path.join(ROOT, ".nvidia/nvidia/cu13/bin/nvcc"), "--version"],
                          capture_output=True, text=True).stdout.strip().splitlines()[-1:]
    date = datetime.date.today().isoformat()
    result = {
        "what": "registers per thread: ptxas (nvcc -cubin -Xptxas -v, sm_90) against gpucc's "
                "estimate, every kernel of the testsuite's recipe cases",
        "machine": {"cpu": cpu_model(), "cores": os.cpu_count(), "system": platform.platform()},
        "toolchain": nvcc[0] if nvcc else "unknown",
        "date": date,
        "commit": commit,
        "summary": summary,
        "kernels": rows,
    }
    out = write_result("registers", date, commit, result)
    print(f"{len(rows)} kernels: estimate off by {summary['estimate_mean_abs_error']:.1f} "
          f"registers on average (signed {summary['estimate_mean_signed_error']:+.1f}); "
          f"ptxas ~ {base:.1f} + {slope:.2f} x words would be off by "
          f"{summary['fit']['mean_abs_error']:.1f}")
    print(f"wrote {os.path.relpath(out, ROOT)}")


if __name__ == "__main__":
    main()
