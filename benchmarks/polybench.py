#!/usr/bin/env python3
"""gpucc on every PolyBench/C 4.2.1 benchmark as its users build it: the whole file, with
the default check on the CPU (`--link utilities/polybench.c`, the arrays dumped to
standard error and compared), at one dataset. Per benchmark: the exit code, the verdict
line, the wall time (compile, ranking and check; and with --no-verify, the compile alone
when --compile-only is given). Results: benchmarks/results/polybench-<dataset>-<date>-<commit>.json.

PolyBench is not part of gpucc: pass the path of a checkout (github
MatthiasJReisinger/PolyBenchC-4.2.1).

Usage: cargo build --release && python3 benchmarks/polybench.py POLYBENCH_DIR
           [--dataset MINI|SMALL|MEDIUM|LARGE|EXTRALARGE] [--only NAME] [--compile-only]
"""
import argparse
import datetime
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time

from deps_time import ROOT, commit_label, cpu_model, write_result


def launches(cu):
    """The kernels a generated file defines and how many of them one thread runs (gpucc
    says `serial, one thread runs it` in the kernel's header comment)."""
    for path in (cu, cu + ".rejected"):
        if os.path.exists(path):
            with open(path) as f:
                text = f.read()
            return {"kernels": text.count("__global__ void"),
                    "single_thread": text.count("serial, one thread runs it")}
    return {"kernels": None, "single_thread": None}


def benchmark_list(polybench, only=None):
    """(path in the checkout, name) of each benchmark of PolyBench's list whose name
    contains `only` (every one without it); exits when `polybench` has no list."""
    listing = os.path.join(polybench, "utilities", "benchmark_list")
    if not os.path.exists(listing):
        sys.exit(f"{listing} not found: give the path of a PolyBench/C 4.2.1 checkout")
    with open(listing) as f:
        paths = [line.strip() for line in f if line.strip()]
    named = [(b, os.path.splitext(os.path.basename(b))[0]) for b in paths]
    return [(b, name) for b, name in named if not only or only in name]


def defines(dataset):
    """The macros every benchmark is built with (PolyBench's documented flags)."""
    return ["POLYBENCH_USE_SCALAR_LB", f"{dataset}_DATASET", "POLYBENCH_DUMP_ARRAYS"]


def gpucc_flags(bench, dataset):
    """The -I and -D flags of gpucc's command for `bench` (run in the checkout)."""
    return (["-I", "utilities", "-I", os.path.dirname(bench)]
            + [f"-D{d}" for d in defines(dataset)])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("polybench", help="a PolyBench/C 4.2.1 checkout")
    parser.add_argument("--dataset", default="MINI",
                        choices=["MINI", "SMALL", "MEDIUM", "LARGE", "EXTRALARGE"])
    parser.add_argument("--only", help="only the benchmarks whose name contains this")
    parser.add_argument("--compile-only", action="store_true",
                        help="--no-verify: the compile alone (what issue 20's targets time)")
    parser.add_argument("--gpucc", default=os.path.join(ROOT, "target", "release", "gpucc"))
    parser.add_argument("--label", help="the commit label to record (default: this tree's)")
    args = parser.parse_args()
    if not os.path.exists(args.gpucc):
        sys.exit(f"{args.gpucc} not found: run `cargo build --release` first")
    benchmarks = benchmark_list(args.polybench, args.only)

    results = []
    with tempfile.TemporaryDirectory() as scratch:
        for b, name in benchmarks:
            cmd = [args.gpucc, b, *gpucc_flags(b, args.dataset),
                   "-o", os.path.join(scratch, name + ".cu")]
            cmd += ["--no-verify"] if args.compile_only else ["--link", "utilities/polybench.c"]
            start = time.perf_counter()
            p = subprocess.run(cmd, cwd=args.polybench, capture_output=True, text=True)
            seconds = time.perf_counter() - start
            verdict = next((l for l in p.stderr.splitlines() + p.stdout.splitlines()
                            if l.startswith(("verified", "NOT verified", "error"))), "")
            kernels = launches(os.path.join(scratch, name + ".cu"))
            results.append({"benchmark": name, "exit": p.returncode,
                            "seconds": round(seconds, 2), "verdict": verdict, **kernels})
            shape = (f"{kernels['kernels']} kernels, {kernels['single_thread']} single-thread"
                     if kernels["kernels"] is not None else "no .cu")
            print(f"{name:16} exit {p.returncode}  {seconds:6.2f} s  {shape:28} {verdict}",
                  flush=True)

    times = [r["seconds"] for r in results]
    passed = sum(r["exit"] == 0 for r in results)
    what = "compiled (--no-verify)" if args.compile_only else "compiled and verified"
    serial_only = [r["benchmark"] for r in results
                   if r["kernels"] and r["kernels"] == r["single_thread"]]
    print(f"every kernel single-thread in {len(serial_only)}: {', '.join(serial_only) or 'none'}")
    print(f"{passed} of {len(results)} {what}; wall time median {statistics.median(times):.2f} s,"
          f" max {max(times):.2f} s" if results else "no benchmark matched")
    date = datetime.date.today().isoformat()
    commit = args.label or commit_label()
    doc = {
        "benchmark": f"gpucc on PolyBench/C 4.2.1 at {args.dataset}, whole files, "
                     + ("--no-verify" if args.compile_only
                        else "checked on the CPU with --link utilities/polybench.c")
                     + "; wall time per process, release build",
        "date": date,
        "commit": commit,
        "machine": {"cpu": cpu_model(), "cores": os.cpu_count(), "os": platform.platform()},
        "passed": passed,
        "results": results,
    }
    suffix = "-compile" if args.compile_only else ""
    path = write_result(f"polybench-{args.dataset.lower()}{suffix}", date, commit, doc)
    print(f"wrote {os.path.relpath(path, ROOT)}")


if __name__ == "__main__":
    main()
