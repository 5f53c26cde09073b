#!/usr/bin/env python3
"""Times `gpucc deps` on every kernel of testsuite/deps/ and writes the medians to
benchmarks/results/deps-time-<date>-<commit>.json, with the machine, date and commit.

Usage: cargo build --release && python3 benchmarks/deps_time.py [--runs N]
"""
import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def case_args(path):
    """A case file's options: its first line `// gpucc-args: ...` (C) or
    `-- gpucc-args: ...` (recipe)."""
    with open(path) as f:
        first = f.readline()
    for prefix in ("// gpucc-args:", "-- gpucc-args:"):
        if first.startswith(prefix):
            return first[len(prefix):].split()
    return []


def commit_label():
    """The short commit, with `+changes` when src/ differs from it; GPUCC_COMMIT when set
    (a copy of the tree without its .git, as on a lent GPU machine)."""
    if os.environ.get("GPUCC_COMMIT"):
        return os.environ["GPUCC_COMMIT"]
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                            capture_output=True, text=True).stdout.strip()
    if subprocess.run(["git", "status", "--porcelain", "src"], cwd=ROOT,
                      capture_output=True, text=True).stdout.strip():
        commit += "+changes"
    return commit


def write_result(name, date, commit, doc):
    """Writes `doc` to benchmarks/results/<name>-<date>-<commit>.json; returns the path."""
    out_dir = os.path.join(ROOT, "benchmarks", "results")
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, f"{name}-{date}-{commit}.json")
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    return path


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--gpucc", default=os.path.join(ROOT, "target", "release", "gpucc"))
    args = parser.parse_args()
    if not os.path.exists(args.gpucc):
        sys.exit(f"{args.gpucc} not found: run `cargo build --release` first")

    kernels_dir = os.path.join(ROOT, "testsuite", "deps")
    results = []
    for name in sorted(os.listdir(kernels_dir)):
        if not name.endswith(".c"):
            continue
        path = os.path.join("testsuite", "deps", name)
        cmd = [args.gpucc, "deps", path] + case_args(os.path.join(ROOT, path))
        times = []
        for _ in range(args.runs):
            start = time.perf_counter()
            subprocess.run(cmd, cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
            times.append((time.perf_counter() - start) * 1000)
        report = json.loads(subprocess.run(cmd + ["--json"], cwd=ROOT, check=True,
                                           capture_output=True, text=True).stdout)
        results.append({
            "kernel": name,
            "statements": len(report["statements"]),
            "loops": len(report["loops"]),
            "dependences": len(report["dependences"]),
            "median_ms": round(statistics.median(times), 2),
            "min_ms": round(min(times), 2),
            "max_ms": round(max(times), 2),
        })
        print(f"{name:28} {results[-1]['median_ms']:8.2f} ms  ({results[-1]['dependences']} dependences)")

    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                            capture_output=True, text=True).stdout.strip() or "unknown"
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT,
                           capture_output=True, text=True).stdout.strip() != ""
    date = datetime.date.today().isoformat()
    doc = {
        "benchmark": "gpucc deps, wall time per run (process start to exit), release build",
        "date": date,
        "commit": commit + ("-dirty" if dirty else ""),
        "machine": {"cpu": cpu_model(), "cores": os.cpu_count(), "os": platform.platform()},
        "runs_per_kernel": args.runs,
        "kernels": results,
    }
    out = os.path.join(ROOT, "benchmarks", "results", f"deps-time-{date}-{commit}.json")
    with open(out, "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")
    print(f"wrote {os.path.relpath(out, ROOT)}")


if __name__ == "__main__":
    main()
