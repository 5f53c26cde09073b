#!/usr/bin/env python3
"""How fast the emulator is: `gpucc emulate --json` on GEMM variants, the figure the
strategy generator pays per ranked variant (one emulation, without the sensitivity
analysis) and the one `gpucc emulate` pays (with it).

The variants: every recipe `gpucc strategies` writes for the GEMM kernels of the
testsuite (testsuite/strategy/kernels/gemm_*.c and dgemm_nn.c) and of examples/sgemm.c, and
the hand-written recipes/sgemm.lua and recipes/dgemm.lua. The times are those gpucc
measures around the emulation itself (parsing, transforming and generating code are not
counted): the first emulation in the process, which pays for fresh memory, and the one
after it, as when the strategy generator ranks many variants in one process. Results go to benchmarks/results/emulate-speed-<date>-<commit>.json with the
machine, date and commit, and a summary to stdout.

Usage: cargo build --release && python3 benchmarks/emulate_speed.py [--streams ir|sass]
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
import tempfile

from deps_time import ROOT, commit_label, cpu_model, write_result


def emulate(gpucc, path, recipe, streams):
    cmd = [gpucc, "emulate", path, "--recipe", recipe, "--json"]
    if streams == "ir":
        cmd.append("--ir-streams")
    r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{r.stderr}")
    return json.loads(r.stdout)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gpucc", default=os.path.join(ROOT, "target", "release", "gpucc"))
    parser.add_argument("--streams", choices=["ir", "sass"], default="ir",
                        help="instruction streams from the kernel IR (what ranking uses, the "
                             "default) or from the SASS (needs nvcc; what `gpucc emulate` uses)")
    args = parser.parse_args()
    if not os.path.exists(args.gpucc):
        sys.exit(f"{args.gpucc} not found: run `cargo build --release` first")
    commit = commit_label()
    kernels = sorted(glob.glob(os.path.join(ROOT, "testsuite/strategy/kernels/gemm_*.c")))
    kernels += [os.path.join(ROOT, "testsuite/strategy/kernels/dgemm_nn.c"),
                os.path.join(ROOT, "examples/sgemm.c")]
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        jobs = [("testsuite/cuda/sgemm.c", "recipes/sgemm.lua"),
                ("testsuite/cuda/dgemm.c", "recipes/dgemm.lua")]
        for k in kernels:
            rel = os.path.relpath(k, ROOT)
            out = os.path.join(scratch, os.path.basename(k))
            r = subprocess.run([args.gpucc, "strategies", rel, "-o", out],
                               cwd=ROOT, capture_output=True, text=True)
            if r.returncode != 0:
                sys.exit(f"gpucc strategies {rel} failed:\n{r.stderr}")
            jobs += [(rel, v) for v in sorted(glob.glob(os.path.join(out, "variant*.lua")))]
        for i, (path, recipe) in enumerate(jobs):
            print(f"[{i + 1}/{len(jobs)}] {path} {os.path.basename(recipe)}", file=sys.stderr)
            v = emulate(args.gpucc, path, recipe, args.streams)
            if args.streams == "sass" and v.get("instruction_source") != "SASS":
                sys.exit(f"{path} {recipe}: no SASS streams ({v.get('instruction_streams')})")
            rows.append({
                "kernel": path,
                "recipe": recipe if recipe.startswith("recipes/") else os.path.basename(recipe),
                "predicted_time_us": v["predicted_time_us"],
                "bottleneck": v["bottleneck"],
                "emulation_ms": v["emulation_ms"],
                "second_emulation_ms": v["second_emulation_ms"],
                "with_sensitivity_ms": v["with_sensitivity_ms"],
            })
    plain = [r["emulation_ms"] for r in rows]
    again = [r["second_emulation_ms"] for r in rows]
    full = [r["with_sensitivity_ms"] for r in rows]
    summary = {
        "variants": len(rows),
        "median_emulation_ms": statistics.median(plain),
        "max_emulation_ms": max(plain),
        "emulations_per_second": 1e3 / statistics.mean(plain),
        "median_second_emulation_ms": statistics.median(again),
        "median_with_sensitivity_ms": statistics.median(full),
    }
    date = datetime.date.today().isoformat()
    result = {
        "what": "gpucc emulate on GEMM variants: one emulation (what ranking a variant costs) "
                "and the emulation with the sensitivity analysis, times measured by gpucc",
        "machine": {"cpu": cpu_model(), "cores": os.cpu_count(), "system": platform.platform()},
        "device_modelled": "h100",
        "instruction_streams": {"ir": "kernel IR", "sass": "SASS"}[args.streams],
        "date": date,
        "commit": commit,
        "summary": summary,
        "variants": rows,
    }
    name = "emulate-speed" if args.streams == "ir" else "emulate-speed-sass"
    path = write_result(name, date, commit, result)
    print(f"{len(rows)} GEMM variants, {result['instruction_streams']} streams: one emulation {summary['median_emulation_ms']:.2f} ms "
          f"median ({summary['max_emulation_ms']:.2f} ms max, "
          f"{summary['emulations_per_second']:.0f} per second); the next in the same process "
          f"{summary['median_second_emulation_ms']:.2f} ms median; with the sensitivity "
          f"analysis {summary['median_with_sensitivity_ms']:.1f} ms median")
    print(f"wrote {os.path.relpath(path, ROOT)}")


if __name__ == "__main__":
    main()
