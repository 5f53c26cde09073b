#!/usr/bin/env python3
"""The lower bound of `gpucc tune` (seed 001) on every kernel of testsuite/strategy/kernels/:
an exhaustive search (every variant x tile-size combination emulated) against the branch
and bound (candidates whose bound is above the best found are skipped), in the emulator.
Records, per kernel: the candidates, the recipes each search compiled and emulated (the
others were refused: illegal, too large), the candidates the bound skipped, whether both
found the same best, and every emulated time below its candidate's bound (a defect of the
bound: there must be none).
Results: benchmarks/results/tune-bound-<date>-<commit>.json, with the machine.

Usage: cargo build --release && python3 benchmarks/tune_bound.py [--gpucc PATH] [--label TEXT]
           [--only NAME ...]
"""
import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
import tempfile
import time

from deps_time import ROOT, case_args, commit_label, cpu_model, write_result


def tune(gpucc, path, db, exhaustive):
    cmd = [gpucc, "tune", path, "--db", db, "--json"] + case_args(os.path.join(ROOT, path))
    if exhaustive:
        cmd.append("--exhaustive")
    start = time.perf_counter()
    p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if p.returncode != 0:
        return None, seconds, p.stderr.strip().splitlines()[0] if p.stderr.strip() else "failed"
    return json.loads(p.stdout)["sizes"][0], seconds, None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gpucc", default=os.path.join(ROOT, "target", "release", "gpucc"))
    parser.add_argument("--label", help="the commit label to record (default: this tree's)")
    parser.add_argument("--only", nargs="*", help="kernel names (without .c)")
    args = parser.parse_args()
    if not os.path.exists(args.gpucc):
        sys.exit(f"{args.gpucc} not found: run `cargo build --release` first")
    folder = os.path.join("testsuite", "strategy", "kernels")
    names = sorted(n[:-2] for n in os.listdir(os.path.join(ROOT, folder)) if n.endswith(".c"))
    if args.only:
        names = [n for n in names if n in args.only]
    results = []
    with tempfile.TemporaryDirectory() as scratch:
        for name in names:
            path = os.path.join(folder, name + ".c")
            full, full_s, why = tune(args.gpucc, path, os.path.join(scratch, name + "-a.jsonl"), True)
            if full is None:
                results.append({"kernel": name, "error": why})
                print(f"{name:24} error: {why}", flush=True)
                continue
            bb, bb_s, why = tune(args.gpucc, path, os.path.join(scratch, name + "-b.jsonl"), False)
            below = [v for v in full["variants"] if v["below_bound"] > 0]
            r = {
                "kernel": name,
                "candidates": full["candidates"],
                "exhaustive_compiled": full["compiled"],
                "exhaustive_emulated": full["emulated"],
                "exhaustive_s": round(full_s, 2),
                "bound_compiled": bb["compiled"],
                "bound_emulated": bb["emulated"],
                "bound_skipped": bb["skipped_by_bound"],
                "bound_s": round(bb_s, 2),
                "same_best": bb["best_us"] == full["best_us"],
                "best_us": full["best_us"],
                "untuned_us": full["untuned_us"],
                "variants_below_bound": len(below),
                "tightest_bound_ratio": max((v["bound_us"] / v["best_us"] for v in full["variants"]
                                             if v["best_us"]), default=None),
            }
            results.append(r)
            print(f"{name:24} {r['candidates']:4} candidates  exhaustive {r['exhaustive_compiled']:4}"
                  f" compiled, {r['exhaustive_emulated']:4} emulated ({full_s:5.1f} s)"
                  f"  bound {r['bound_compiled']:4}, {r['bound_emulated']:4} ({bb_s:5.1f} s),"
                  f" {r['bound_skipped']:3} skipped  same best: {r['same_best']}"
                  f"  below bound: {r['variants_below_bound']}", flush=True)
    ok = [r for r in results if "error" not in r]
    summary = {
        "kernels": len(results),
        "errors": len(results) - len(ok),
        "candidates": sum(r["candidates"] for r in ok),
        "exhaustive_compiled": sum(r["exhaustive_compiled"] for r in ok),
        "bound_compiled": sum(r["bound_compiled"] for r in ok),
        "exhaustive_emulated": sum(r["exhaustive_emulated"] for r in ok),
        "bound_emulated": sum(r["bound_emulated"] for r in ok),
        "exhaustive_s": round(sum(r["exhaustive_s"] for r in ok), 1),
        "bound_s": round(sum(r["bound_s"] for r in ok), 1),
        "bound_skipped": sum(r["bound_skipped"] for r in ok),
        "kernels_with_same_best": sum(r["same_best"] for r in ok),
        "variants_below_bound": sum(r["variants_below_bound"] for r in ok),
        "tuned_faster_than_untuned": sum(r["best_us"] < r["untuned_us"] for r in ok
                                         if r["untuned_us"]),
    }
    print(json.dumps(summary))
    date = datetime.date.today().isoformat()
    commit = args.label or commit_label()
    doc = {
        "benchmark": "gpucc tune in the emulator on testsuite/strategy/kernels (sizes as written):"
                     " --exhaustive against the branch and bound with the lower bound of seed 001;"
                     " every time is a prediction (emulated, not measured)",
        "date": date,
        "commit": commit,
        "machine": {"cpu": cpu_model(), "cores": os.cpu_count(), "os": platform.platform()},
        "summary": summary,
        "kernels": results,
    }
    path = write_result("tune-bound", date, commit, doc)
    print(f"wrote {os.path.relpath(path, ROOT)}")


if __name__ == "__main__":
    main()
