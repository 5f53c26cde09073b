#!/usr/bin/env python3
"""The emulator's calibration set, and its timing on a GPU (issue 6).

  python3 benchmarks/calibrate.py select
      (any machine) For each kernel of KERNELS, runs `gpucc strategies` at the set's sizes,
      keeps up to VARIANTS variants spread over the ranking (best, middle, worst) and, for
      each, its default tile sizes and one other choice; writes the recipes to
      benchmarks/calibration/<kernel>/ and the list to benchmarks/calibration/set.json.
      Every entry is compiled once (gpucc, --no-verify) to be sure it is legal.

  python3 benchmarks/calibrate.py time [--runs 10] [-o FILE] [--set SET.json]
      (a machine with a GPU) For every entry of set.json, `gpucc verify --device gpu --time`:
      nvcc builds the .cu, it runs on the GPU, its arrays are compared with the C's, and
      each launch is timed with CUDA events (a warm-up, then the median of --runs runs).
      Writes benchmarks/results/calibration-<device>-<date>-<commit>.json (or FILE) with the
      device, driver, date, commit and every time. Entries that fail the check are recorded
      as failures, never timed.

  python3 benchmarks/calibrate.py accuracy RESULTS.json
      (any machine) Emulates every timed entry (`gpucc emulate --estimate-registers`, the
      strategy generator's way) and records the Spearman rank correlation and the
      geometric-mean relative error against the times in benchmarks/calibration/accuracy.json.
      testsuite/calibration_cases.rs computes the same and fails if they are worse.
      With --sass: emulates the SASS instead (nvcc and nvdisasm needed; registers from
      ptxas), recorded in benchmarks/calibration/accuracy-sass.json. RESULTS may also be
      a `benchmarks/vendor.py --mode gpu` results file: its shipped-recipe variants
      (register-tiled GEMMs, GEMV, transpose, Jacobi at full size) are the timed entries,
      recorded in accuracy-vendor.json (accuracy-vendor-sass.json with --sass); or a
      `time --set benchmarks/calibration/outer/set.json` results file (the outer-product
      GEMMs of issue 19), recorded in accuracy-outer.json (-outer-sass.json). Entries are
      emulated for the device the results were timed on (--device h100, h200, ...).
      Several RESULTS files of one device count together (a vendor.py run and the
      problems timed again in a later run: `accuracy vendor-A.json vendor-A-transpose.json`),
      named after the first.
"""
import argparse
import datetime
import glob
import json
import math
import os
import re
import shutil
import subprocess
import sys
import time

from deps_time import ROOT, commit_label, write_result

KERNELS_DIR = "testsuite/strategy/kernels"
SET_DIR = os.path.join(ROOT, "benchmarks", "calibration")
VARIANTS = 3

# Kernel and the sizes it is timed (and checked) at: large enough to fill an H100 for tens
# of microseconds, small enough that the C reference (run by the check on the CPU, -O1)
# takes well under a second.
KERNELS = [
    ("gemm_nn", ["N=512"]),
    ("dgemm_nn", ["M=512", "N=512", "K=512"]),
    ("gemv_n", ["M=4096", "N=4096"]),
    ("gemv_t", ["M=4096", "N=4096"]),
    ("jacobi2d_5pt", ["TSTEPS=10", "N=1024", "M=1024"]),
    ("conv2d_5x5", ["H=2048", "W=2048"]),
    ("transpose_rect", ["M=3072", "N=5120"]),
    ("stencil3d_heat", ["TSTEPS=5", "N=128"]),
    ("distance_matrix", ["NX=1024", "NY=2048"]),
    ("nbody_forces", ["NBODIES=4096"]),
    ("mriq", ["NUM_K=1024", "NUM_X=8192"]),
    ("syrk_lower", ["N=512", "K=512"]),
    ("tensor_contraction4d", ["NA=24", "NB=24", "NC=24", "ND=24"]),
]

# Variants left out of the set, and why (their recipe and parameters; see set.json).
LEFT_OUT = {
    ("benchmarks/calibration/gemv_t/variant01_nest1.lua", ()): "nvcc takes minutes on it",
    ("benchmarks/calibration/gemv_t/variant01_nest1.lua", ("TX=512",)): "nvcc takes minutes on it",
}

PARAM = re.compile(r'^(\w+)\s*=\s*param\("(\w+)",\s*\{([^}]*)\},\s*(-?\d+)\)', re.M)


def gpucc_path(arg):
    path = arg or os.path.join(ROOT, "target", "release", "gpucc")
    if not os.path.exists(path):
        sys.exit(f"{path} not found: run `cargo build --release` first")
    return path


def defines(sizes):
    return [x for s in sizes for x in ("-D", s)]


def other_choice(recipe_text):
    """`-P NAME=VALUE` for each parameter: the next candidate after the default (or the one
    before, for the last): a second tile-size choice of the same variant."""
    params = []
    for m in PARAM.finditer(recipe_text):
        values = [int(v) for v in m.group(3).split(",") if v.strip()]
        default = int(m.group(4))
        if default not in values or len(values) < 2:
            continue
        k = values.index(default)
        other = values[k + 1] if k + 1 < len(values) else values[k - 1]
        params.append(f"{m.group(2)}={other}")
    return params


def select(args):
    gpucc = gpucc_path(args.gpucc)
    if os.path.exists(SET_DIR):
        shutil.rmtree(SET_DIR)
    entries, left_out = [], []
    for kernel, sizes in KERNELS:
        source = f"{KERNELS_DIR}/{kernel}.c"
        out = os.path.join(SET_DIR, kernel)
        r = subprocess.run([gpucc, "strategies", source, *defines(sizes), "-o", out],
                           cwd=ROOT, capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(f"gpucc strategies {source} failed:\n{r.stderr}")
        variants = sorted(glob.glob(os.path.join(out, "variant*.lua")))
        n = len(variants)
        picks = sorted({0, n // 2, n - 1}) if n > VARIANTS else range(n)
        keep = [variants[k] for k in picks]
        for path in variants + [os.path.join(out, "chosen.lua")]:
            if path not in keep:
                os.remove(path)
        for path in keep:
            recipe = os.path.relpath(path, ROOT)
            with open(path) as f:
                text = f.read()
            choices = [[]] + ([other_choice(text)] if other_choice(text) else [])
            for params in choices:
                entry = {"kernel": kernel, "file": source, "defines": sizes,
                         "recipe": recipe, "params": params}
                why = LEFT_OUT.get((recipe, tuple(params)))
                if why:
                    left_out.append({**entry, "why": why})
                    continue
                cmd = [gpucc, source, *defines(sizes), "--recipe", recipe,
                       *[x for p in params for x in ("-P", p)], "--no-verify", "-o", "/dev/null"]
                r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
                if r.returncode != 0:
                    print(f"left out (does not compile): {' '.join(cmd[1:])}", file=sys.stderr)
                    continue
                entries.append(entry)
        print(f"{kernel}: {n} variants, kept {len(keep)}", file=sys.stderr)
    with open(os.path.join(SET_DIR, "set.json"), "w") as f:
        json.dump({"sizes_note": "timed and checked at these sizes", "entries": entries,
                   "left_out": left_out}, f, indent=1)
        f.write("\n")
    print(f"{len(entries)} entries in {os.path.relpath(SET_DIR, ROOT)}/set.json", file=sys.stderr)


def entry_args(e):
    return [e["file"], *defines(e["defines"]), "--recipe", e["recipe"],
            *[x for p in e["params"] for x in ("-P", p)]]


def nvidia_smi(query):
    try:
        r = subprocess.run(["nvidia-smi", f"--query-gpu={query}", "--format=csv,noheader"],
                           capture_output=True, text=True, timeout=30)
        return r.stdout.strip().splitlines()[0] if r.returncode == 0 else "unknown"
    except (OSError, subprocess.TimeoutExpired, IndexError):
        return "unknown"


def verify_time(stdout):
    """What `gpucc verify --device gpu --time` printed: (the total microseconds, the
    device, each kernel's launches and microseconds), or None if it printed no time."""
    m = re.search(r"^kernel time: ([0-9.]+) us on (.+?) \(", stdout, re.M)
    if not m:
        return None
    lines = stdout.splitlines()
    after = next(i for i, l in enumerate(lines) if l.startswith("kernel time:")) + 1
    kernels = []
    for line in lines[after:]:
        f = line.split()
        if not line.startswith("  ") or len(f) < 5:
            break
        kernels.append({"kernel": f[0], "launches": int(f[1]), "us": float(f[-2])})
    return float(m.group(1)), m.group(2), kernels


def timing(args):
    gpucc = gpucc_path(args.gpucc)
    with open(args.set or os.path.join(SET_DIR, "set.json")) as f:
        entries = json.load(f)["entries"][:args.limit]
    rows, failures = [], []
    device = None
    start = time.time()
    for k, e in enumerate(entries):
        cmd = [gpucc, "verify", *entry_args(e), "--device", "gpu", "--time",
               "--runs", str(args.runs)]
        try:
            r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True,
                               timeout=args.timeout)
        except subprocess.TimeoutExpired:
            failures.append({**e, "exit": None, "report": [f"timed out after {args.timeout} s"]})
            print(f"[{k + 1}/{len(entries)}] TIMED OUT {' '.join(entry_args(e))}", file=sys.stderr)
            write(args, rows, failures, device)
            continue
        timed = verify_time(r.stdout)
        label = " ".join(entry_args(e))
        if r.returncode != 0 or not timed:
            failures.append({**e, "exit": r.returncode,
                             "report": (r.stdout + r.stderr).strip().splitlines()[-6:]})
            print(f"[{k + 1}/{len(entries)}] FAILED {label}", file=sys.stderr)
            write(args, rows, failures, device)
            continue
        total, device, kernels = timed
        rows.append({**e, "measured_us": total, "kernels": kernels})
        print(f"[{k + 1}/{len(entries)}] {total:10.2f} us  {label}  "
              f"({time.time() - start:.0f} s)", file=sys.stderr)
        write(args, rows, failures, device)
    path = write(args, rows, failures, device)
    print(f"wrote {path}", file=sys.stderr)
    print(f"{len(rows)} timed, {len(failures)} failed", file=sys.stderr)


def write(args, rows, failures, device):
    """Writes what was measured so far (after every entry: a run cut short keeps it)."""
    doc = {
        "what": f"kernel times of the calibration set ({os.path.relpath(args.set, ROOT) if args.set else 'benchmarks/calibration/set.json'}): "
                "gpucc verify --device gpu --time, CUDA events, each launch's median summed",
        "device": device or nvidia_smi("name"),
        "driver": nvidia_smi("driver_version"),
        "date": datetime.date.today().isoformat(),
        "commit": commit_label(),
        "runs": args.runs,
        "entries": rows,
        "failures": failures,
    }
    if args.output:
        with open(args.output, "w") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")
        return args.output
    slug = re.sub(r"[^a-z0-9]+", "-", doc["device"].lower()).strip("-")
    return write_result("calibration-" + slug, doc["date"], doc["commit"], doc)


def spearman(a, b):
    def ranks(xs):
        order = sorted(range(len(xs)), key=lambda i: xs[i])
        r = [0.0] * len(xs)
        i = 0
        while i < len(order):
            j = i
            while j + 1 < len(order) and xs[order[j + 1]] == xs[order[i]]:
                j += 1
            for k in range(i, j + 1):
                r[order[k]] = (i + j) / 2 + 1
            i = j + 1
        return r
    ra, rb = ranks(a), ranks(b)
    ma, mb = sum(ra) / len(ra), sum(rb) / len(rb)
    cov = sum((x - ma) * (y - mb) for x, y in zip(ra, rb))
    return cov / math.sqrt(sum((x - ma) ** 2 for x in ra) * sum((y - mb) ** 2 for y in rb))


def timed_entries(results):
    """(gpucc emulate's arguments, measured microseconds) of every timed entry of a
    calibration results file, or of the shipped-recipe variants of a vendor.py one."""
    out = []
    for e in results["entries"]:
        if "measured_us" in e:
            out.append((entry_args(e), e["measured_us"]))
            continue
        v = e.get("variants", {}).get("recipe", {})
        if v.get("status") == "measured" and e.get("recipe"):
            d = [f"{k}={x}" for k, x in e["defines"].items()]
            out.append(([e["source"], *defines(d), "--recipe", e["recipe"]], v["time_us"]))
    return out


def device_of(results):
    """The description in benchmarks/devices/ of the GPU a results file was timed on."""
    name = results.get("device", "")
    for key in ("h200", "h100", "a100", "v100"):
        if key in name.lower():
            return key
    sys.exit(f"{name!r}: no description in benchmarks/devices/ matches the results' device")


def accuracy(args):
    gpucc = gpucc_path(args.gpucc)
    files = []
    for path in args.results:
        with open(path) as f:
            files.append(json.load(f))
    devices = {device_of(r) for r in files}
    if len(devices) > 1:
        sys.exit(f"the results files were timed on different devices: {sorted(devices)}")
    measured, predicted = [], []
    mode = [] if args.sass else ["--estimate-registers"]
    mode += ["--device", devices.pop()]
    for cmd, us in [e for r in files for e in timed_entries(r)]:
        r = subprocess.run([gpucc, "emulate", *cmd, *mode, "--json"],
                           cwd=ROOT, capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(f"gpucc emulate {' '.join(cmd)} failed:\n{r.stderr}")
        out = json.loads(r.stdout)
        if args.sass and out["instruction_source"] != "SASS":
            sys.exit(f"gpucc emulate {' '.join(cmd)}: {out['instruction_streams']}")
        p = out["predicted_time_us"]
        measured.append(us)
        predicted.append(p)
        print(f"{us:12.2f} us measured {p:12.2f} us predicted  {' '.join(cmd)}",
              file=sys.stderr)
    rho = spearman(measured, predicted)
    errors = [max(abs(p - m) / m, 1e-9) for m, p in zip(measured, predicted)]
    geomean = math.exp(sum(math.log(x) for x in errors) / len(errors))
    paths = [os.path.relpath(os.path.abspath(p), ROOT) for p in args.results]
    doc = {
        "results": paths[0] if len(paths) == 1 else paths,
        "entries": len(measured),
        "spearman": round(rho, 4),
        "geomean_relative_error": round(geomean, 4),
        "commit": commit_label(),
        "date": datetime.date.today().isoformat(),
        "how": f"gpucc emulate {' '.join(mode)}"
               f"{' (SASS streams, registers from ptxas)' if args.sass else ''} "
               "on every timed entry; testsuite/calibration_cases.rs fails if its figures "
               "are worse than these",
    }
    base = os.path.basename(args.results[0])
    kind = "-vendor" if "vendor" in base else "-outer" if "calibration-outer" in base else ""
    name = "accuracy" + kind + ("-sass" if args.sass else "") + ".json"
    with open(os.path.join(SET_DIR, name), "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    print(f"{len(measured)} entries: Spearman {rho:.3f}, geometric-mean relative error "
          f"{geomean:.3f} (targets: >= 0.85, <= 0.15)", file=sys.stderr)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gpucc")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("select")
    t = sub.add_parser("time")
    t.add_argument("--runs", type=int, default=10)
    t.add_argument("-o", "--output")
    t.add_argument("--limit", type=int, help="only the first N entries (a smoke test)")
    t.add_argument("--timeout", type=int, default=90, help="seconds for one entry")
    t.add_argument("--set", help="the entries to time (default: benchmarks/calibration/set.json; "
                   "benchmarks/calibration/outer/set.json: the outer-product GEMMs of issue 19)")
    a = sub.add_parser("accuracy")
    a.add_argument("results", nargs="+",
                   help="results files of one device (several: their entries together)")
    a.add_argument("--sass", action="store_true",
                   help="emulate the SASS (nvcc and nvdisasm needed), not the kernel IR")
    args = parser.parse_args()
    if args.command == "select":
        select(args)
    elif args.command == "accuracy":
        accuracy(args)
    else:
        timing(args)


if __name__ == "__main__":
    main()
