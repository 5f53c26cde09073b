#!/usr/bin/env python3
"""Runs every variant of the testsuite on a GPU: `gpucc verify --device gpu` (nvcc builds
the .cu, it runs on the GPU, its arrays are compared with the C's on the same inputs).

Variants: the recipe cases (testsuite/cuda/*.c and testsuite/recipe/*.lua, at their own
sizes) and the strategy generator's choice for every kernel of testsuite/strategy/kernels
(compiled without a recipe at the file's sizes, then checked at those sizes).

Writes benchmarks/results/gpu-verify-<date>-<commit>.json (or -o FILE): the device,
driver, date, commit, and every variant with its outcome. Exit 1 if any failed.

Usage (on a machine with a GPU and nvcc): cargo build --release &&
    python3 benchmarks/gpu_verify.py [-j 8] [-o FILE]
"""
import argparse
import concurrent.futures
import datetime
import glob
import json
import os
import subprocess
import sys
import tempfile
import time

from calibrate import gpucc_path, nvidia_smi
from deps_time import ROOT, commit_label, write_result
from registers import cases

TIMEOUT = 150

# Solvers get diagonally dominant matrices (random ones make their results meaningless:
# forward substitution at N = 4096 overflows); LU, a one-thread kernel, a smaller size.
SOLVERS = {"forward_subst": [], "lu_nopivot": ["-D", "N=400"]}


def check(gpucc, label, cmd_prefix):
    """Runs one variant; returns its record."""
    start = time.time()
    with tempfile.TemporaryDirectory() as tmp:
        cmd = cmd_prefix(tmp)
        if cmd is None:
            return {"variant": label, "passed": False, "report": ["gpucc could not compile it"]}
        try:
            r = subprocess.run([gpucc, "verify", *cmd, "--device", "gpu"], cwd=ROOT,
                               capture_output=True, text=True, timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            return {"variant": label, "passed": False, "seconds": TIMEOUT,
                    "report": [f"timed out after {TIMEOUT} s (nvcc, or the C reference)"]}
    lines = (r.stdout + r.stderr).strip().splitlines()
    return {"variant": label, "passed": r.returncode == 0, "seconds": round(time.time() - start, 1),
            "report": lines if r.returncode != 0 else lines[-1:]}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gpucc")
    parser.add_argument("-j", type=int, default=8)
    parser.add_argument("-o", "--output")
    parser.add_argument("--only", help="only the variants whose label contains this")
    args = parser.parse_args()
    gpucc = gpucc_path(args.gpucc)

    jobs = []
    for path, extra in cases():
        jobs.append((" ".join([path] + extra), lambda tmp, a=[path] + extra: a))
    for c in sorted(glob.glob(os.path.join(ROOT, "testsuite/strategy/kernels/*.c"))):
        rel = os.path.relpath(c, ROOT)

        name = os.path.basename(rel)[:-2]
        sizes = SOLVERS.get(name, [])
        extra = sizes + (["--diagonally-dominant"] if name in SOLVERS else [])

        def strategy(tmp, rel=rel, sizes=sizes, extra=extra):
            cu = os.path.join(tmp, "out.cu")
            r = subprocess.run([gpucc, rel, *sizes, "-o", cu, "--no-verify"], cwd=ROOT,
                               capture_output=True, text=True)
            return [rel, cu, *extra] if r.returncode == 0 else None
        jobs.append((" ".join([rel, *extra]) + " (no recipe: the strategy generator's choice)",
                     strategy))

    if args.only:
        jobs = [j for j in jobs if args.only in j[0]]
    rows = []
    with concurrent.futures.ThreadPoolExecutor(args.j) as pool:
        futures = [pool.submit(check, gpucc, label, prefix) for label, prefix in jobs]
        for k, f in enumerate(futures):
            row = f.result()
            rows.append(row)
            print(f"[{k + 1}/{len(jobs)}] {'ok    ' if row['passed'] else 'FAILED'} {row['variant']}",
                  file=sys.stderr)
    failed = [r for r in rows if not r["passed"]]
    doc = {
        "what": "gpucc verify --device gpu on every testsuite variant",
        "device": nvidia_smi("name"),
        "driver": nvidia_smi("driver_version"),
        "date": datetime.date.today().isoformat(),
        "commit": commit_label(),
        "passed": len(rows) - len(failed),
        "failed": len(failed),
        "variants": rows,
    }
    if args.output:
        with open(args.output, "w") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")
    else:
        print(write_result("gpu-verify", doc["date"], doc["commit"], doc), file=sys.stderr)
    print(f"{doc['passed']} passed, {doc['failed']} failed on {doc['device']}", file=sys.stderr)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
