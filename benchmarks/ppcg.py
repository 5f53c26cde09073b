#!/usr/bin/env python3
"""gpucc against PPCG on every PolyBench/C 4.2.1 benchmark, whole files, at one dataset.

Per benchmark, for each compiler: the compile time (wall time of the process), the exit
code, the kernels and how many of them run on one thread, and whether the generated
program prints what the C prints. gpucc: `gpucc FILE.c ... --no-verify` timed, its kernels
counted as polybench.py counts them (`__global__ void`, and `serial, one thread runs it`
in a kernel's header comment), then a second run with the default check
(`--link utilities/polybench.c`): a match is exit 0 and a line starting with `verified`.
PPCG: `ppcg --target=cuda FILE.c` timed, its kernels counted in X_kernel.cu, and each
launch in X_host.cu read (`dim3 kN_dimBlock(...)`, `dim3 kN_dimGrid(...)`): a launch is
single-thread when its grid and block hold one thread in all, parallel when more. PPCG's
three files (X_host.cu, X_kernel.hu, X_kernel.cu) are joined into one, behind the same
`-D` macros as `#define`s (what nvcc would be given), and checked with `gpucc verify FILE.c
JOINED.cu --link utilities/polybench.c` on gpucc's CPU runtime; where that check gives no
verdict the match is recorded as not checked, with the reason.

The GPU columns (kernel times at LARGE and their ratio) are kept as null, "not measured",
for a session with a GPU to fill. Results: benchmarks/results/ppcg-compare-<dataset>-<date>-
<commit>.json and a markdown table beside it (.md).

PolyBench and PPCG are not part of gpucc: pass the path of a PolyBench checkout (github
MatthiasJReisinger/PolyBenchC-4.2.1) and of a built ppcg binary.

Usage: cargo build --release && python3 benchmarks/ppcg.py POLYBENCH_DIR --ppcg PPCG
           [--gpucc PATH] [--dataset MINI|...|EXTRALARGE] [--only NAME] [--timeout S]
           [--label COMMIT]
"""
import argparse
import ast
import datetime
import math
import os
import platform
import re
import signal
import subprocess
import sys
import tempfile
import time

from deps_time import ROOT, commit_label, cpu_model, write_result
from polybench import benchmark_list, defines, gpucc_flags, launches

GPU_NOT_MEASURED = "not measured: no GPU on the machine of this run"


def run(cmd, cwd, timeout):
    """Runs `cmd` in its own process group; returns (exit code or None on timeout, seconds,
    stdout, stderr). On a timeout the whole group (the compilers and programs it started)
    is killed."""
    start = time.perf_counter()
    p = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
        code = p.returncode
    except subprocess.TimeoutExpired:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        out, err = p.communicate()
        code = None
    return code, time.perf_counter() - start, out, err


def verdict_line(out, err):
    return next((l for l in err.splitlines() + out.splitlines()
                 if l.startswith(("verified", "NOT verified", "error"))), "")


def first_errors(text, n=2):
    """The first `n` lines that say error (a compiler's first error, gpucc's reason)."""
    lines = [l.strip() for l in text.splitlines() if "error" in l]
    return " | ".join(lines[:n])[:500]


def judge(code, seconds, out, err, timeout):
    """What a check (gpucc's own, or gpucc verify on PPCG's files) found: `matches` True
    (a `verified` line and exit 0), False (a `NOT verified` line: `kind` says whether the
    outputs differed or the CPU runtime saw a data race), or None with the reason it gave
    no verdict (`not_checked`)."""
    verdict = verdict_line(out, err)
    r = {"check": {"exit": code, "seconds": round(seconds, 3), "timeout": code is None,
                   "verdict": verdict}}
    if code is None:
        r.update(matches=None, not_checked=f"the check timed out after {timeout:g} s")
    elif verdict.startswith("verified") and code == 0:
        r.update(matches=True, kind="same output")
    elif verdict.startswith("NOT verified"):
        kind = ("data race" if "race" in verdict
                else "different output" if "different output" in verdict
                else "computes something else" if "something else" in verdict
                else "not verified")
        r.update(matches=False, kind=kind)
    else:
        r.update(matches=None, not_checked="gpucc gave no verdict: "
                 + (first_errors(err + "\n" + out) or last_lines(err + out) or f"exit {code}"))
    return r


def last_lines(text, n=3):
    lines = [l for l in text.splitlines() if l.strip()]
    return " | ".join(lines[-n:])[:500]


def evaluate(expr):
    """The value of a launch dimension PPCG printed (integers, + - * / %, ppcg_min,
    ppcg_max, min, max, floord); None when it names a variable (a size parameter)."""
    def ev(node):
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, int):
            return node.value
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            v = ev(node.operand)
            return -v if isinstance(node.op, ast.USub) else v
        if isinstance(node, ast.BinOp):
            a, b = ev(node.left), ev(node.right)
            if isinstance(node.op, ast.Add):
                return a + b
            if isinstance(node.op, ast.Sub):
                return a - b
            if isinstance(node.op, ast.Mult):
                return a * b
            if isinstance(node.op, (ast.Div, ast.FloorDiv)):  # C division truncates
                return int(a / b)
            if isinstance(node.op, ast.Mod):
                return int(math.fmod(a, b))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            args = [ev(a) for a in node.args]
            if node.func.id in ("ppcg_min", "min"):
                return min(args)
            if node.func.id in ("ppcg_max", "max"):
                return max(args)
            if node.func.id == "floord":
                return args[0] // args[1]
        raise ValueError(ast.dump(node))
    try:
        return ev(ast.parse(expr.strip(), mode="eval"))
    except (ValueError, SyntaxError, ZeroDivisionError, TypeError):
        return None


def split_args(text):
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
            continue
        depth += ch == "("
        depth -= ch == ")"
        cur += ch
    parts.append(cur)
    return [p.strip() for p in parts if p.strip()]


def ppcg_launches(host, kernel):
    """PPCG's kernels (`__global__ void` in X_kernel.cu) and its launch sites in X_host.cu,
    each with its grid and block and whether it runs on one thread."""
    kernels = kernel.count("__global__ void")
    dims = {}  # `dim3 k0_dimBlock;` (no arguments) is CUDA's default dim3: 1 x 1 x 1
    for m in re.finditer(r"dim3\s+(k\d+)_dim(Block|Grid)\s*(?:\((.*)\))?\s*;", host):
        dims[(m.group(1), m.group(2))] = m.group(3)
    shapes = []
    for m in re.finditer(r"(kernel\d+)\s*<<<\s*(k\d+)_dimGrid\s*,\s*(k\d+)_dimBlock\s*>>>", host):
        grid_key, block_key = (m.group(2), "Grid"), (m.group(3), "Block")
        threads = None
        if grid_key in dims and block_key in dims:
            grid, block = ([evaluate(x) for x in split_args(dims[k] or "1")]
                           for k in (grid_key, block_key))
            if None not in grid + block:
                threads = math.prod(grid) * math.prod(block)

        def shown(key):
            if key not in dims:
                return "not found"
            return "default (1)" if dims[key] is None else f"({dims[key]})"
        shapes.append({"kernel": m.group(1), "grid": shown(grid_key),
                       "block": shown(block_key), "threads": threads})
    single = sum(s["threads"] == 1 for s in shapes)
    parallel = sum(s["threads"] is not None and s["threads"] > 1 for s in shapes)
    unknown = sum(s["threads"] is None for s in shapes)
    return {"kernels": kernels, "launches": len(shapes), "single_thread_launches": single,
            "parallel_launches": parallel, "unknown_launches": unknown, "launch_shapes": shapes}


def join_ppcg(name, outdir, macros):
    """PPCG's three files as one .cu gpucc verify can read: the -D macros as #defines,
    X_host.cu with X_kernel.hu in place of its #include (less `#include "cuda.h"`), then
    X_kernel.cu less its #include."""
    with open(os.path.join(outdir, f"{name}_host.cu")) as f:
        host = f.read()
    with open(os.path.join(outdir, f"{name}_kernel.hu")) as f:
        hu = f.read().replace('#include "cuda.h"\n', "")
    with open(os.path.join(outdir, f"{name}_kernel.cu")) as f:
        kernel = f.read()
    include = f'#include "{name}_kernel.hu"\n'
    host = host.replace(include, hu, 1)
    kernel = kernel.replace(include, "", 1)
    head = "".join(f"#define {d} 1\n" for d in macros)
    path = os.path.join(outdir, f"{name}_joined.cu")
    with open(path, "w") as f:
        f.write(head + host + "\n" + kernel)
    return path


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def fmt_s(seconds, code):
    if code is None:
        return "timeout"
    return f"{seconds:.2f}"


def fmt_match(c):
    if c["matches"] is False:
        return f"NO ({c['kind']})"
    return {True: "yes", None: "not checked"}[c["matches"]]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("polybench", help="a PolyBench/C 4.2.1 checkout")
    parser.add_argument("--ppcg", required=True, help="a built ppcg binary")
    parser.add_argument("--gpucc", default=os.path.join(ROOT, "target", "release", "gpucc"))
    parser.add_argument("--dataset", default="MINI",
                        choices=["MINI", "SMALL", "MEDIUM", "LARGE", "EXTRALARGE"])
    parser.add_argument("--only", help="only the benchmarks whose name contains this")
    parser.add_argument("--timeout", type=float, default=300,
                        help="seconds each run may take before it is recorded as a timeout")
    parser.add_argument("--label", help="the commit label to record (default: this tree's)")
    parser.add_argument("--note", help="a remark on the run to record (what else ran beside it)")
    args = parser.parse_args()
    for tool in (args.gpucc, args.ppcg):
        if not os.path.exists(tool):
            sys.exit(f"{tool} not found")
    polybench = os.path.abspath(args.polybench)
    benchmarks = benchmark_list(polybench, args.only)
    ppcg_version = subprocess.run([args.ppcg, "--version"], capture_output=True,
                                  text=True).stdout.splitlines()
    gpucc_version = subprocess.run([args.gpucc, "--version"], capture_output=True,
                                   text=True).stdout.strip()

    dflags = [f"-D{d}" for d in defines(args.dataset)]
    load_before = [round(x, 2) for x in os.getloadavg()]
    results = []
    with tempfile.TemporaryDirectory() as scratch:
        for b, name in benchmarks:
            bdir = os.path.dirname(b)
            flags = gpucc_flags(b, args.dataset)
            row = {"benchmark": name}

            # gpucc: the compile alone, then the compile with its check.
            out = os.path.join(scratch, name + ".cu")
            code, secs, so, se = run([args.gpucc, b] + flags + ["-o", out, "--no-verify"],
                                     polybench, args.timeout)
            g = {"exit": code, "seconds": round(secs, 3), "timeout": code is None,
                 **launches(out)}
            if code not in (0, None):
                g["message"] = last_lines(se)
            g["parallel"] = (g["kernels"] > g["single_thread"]
                             if code == 0 and g["kernels"] is not None else None)
            checked = os.path.join(scratch, name + "-checked.cu")
            vcode, vsecs, vo, ve = run([args.gpucc, b] + flags +
                                       ["-o", checked, "--link", "utilities/polybench.c"],
                                       polybench, args.timeout)
            g.update(judge(vcode, vsecs, vo, ve, args.timeout))
            row["gpucc"] = g

            # PPCG: the compile in a directory of its own (it writes X_host.cu,
            # X_kernel.cu, X_kernel.hu into the current directory).
            pdir = os.path.join(scratch, "ppcg-" + name)
            os.makedirs(pdir)
            pflags = ["-I", os.path.join(polybench, "utilities"),
                      "-I", os.path.join(polybench, bdir)] + dflags
            code, secs, so, se = run([args.ppcg, "--target=cuda", os.path.join(polybench, b)]
                                     + pflags, pdir, args.timeout)
            p = {"exit": code, "seconds": round(secs, 3), "timeout": code is None}
            if code not in (0, None) or (code == 0 and se.strip()):
                p["message"] = last_lines(se)
            files = [os.path.join(pdir, f"{name}{s}")
                     for s in ("_host.cu", "_kernel.cu", "_kernel.hu")]
            have = code == 0 and all(os.path.exists(f) for f in files)
            if have:
                with open(files[0]) as f:
                    host = f.read()
                with open(files[1]) as f:
                    kernel = f.read()
                p.update(ppcg_launches(host, kernel))
                p["parallel"] = p["parallel_launches"] > 0 if not p["unknown_launches"] \
                    or p["parallel_launches"] else None
            else:
                p.update({"kernels": None, "launches": None, "single_thread_launches": None,
                          "parallel_launches": None, "unknown_launches": None,
                          "launch_shapes": [], "parallel": None})
            if have:
                joined = join_ppcg(name, pdir, defines(args.dataset))
                vcode, vsecs, vo, ve = run([args.gpucc, "verify", b, joined, "--link",
                                            "utilities/polybench.c"] + flags,
                                           polybench, args.timeout)
                p.update(judge(vcode, vsecs, vo, ve, args.timeout))
            else:
                p["check"] = None
                p["matches"] = None
                p["not_checked"] = ("PPCG timed out" if code is None
                                    else "PPCG wrote no CUDA files" if code == 0
                                    else f"PPCG failed (exit {code})")
            row["ppcg"] = p

            both = row["gpucc"]["exit"] == 0 and p["exit"] == 0 and p["seconds"] > 0
            row["compile_time_ratio"] = (round(row["gpucc"]["seconds"] / p["seconds"], 3)
                                         if both else None)
            row["gpu"] = {"dataset": "LARGE", "gpucc_ms": None, "ppcg_ms": None,
                          "ppcg_over_gpucc": None, "status": GPU_NOT_MEASURED}
            results.append(row)
            gk = (f"{g['kernels']} kernels, {g['single_thread']} single"
                  if g["kernels"] is not None else "no .cu")
            pk = (f"{p['kernels']} kernels, {p['single_thread_launches']}/{p['launches']}"
                  f" single" if p["kernels"] is not None else "no .cu")
            print(f"{name:16} gpucc {fmt_s(g['seconds'], g['exit']):>7} s {gk:22} "
                  f"match {fmt_match(g):11} | ppcg exit {'-' if p['exit'] is None else p['exit']} "
                  f"{fmt_s(p['seconds'], p['exit']):>7} s {pk:24} "
                  f"match {fmt_match(p)}", flush=True)

    # The summary.
    n = len(results)
    g_par = [r["benchmark"] for r in results if r["gpucc"]["parallel"]]
    p_par = [r["benchmark"] for r in results if r["ppcg"]["parallel"]]
    ppcg_only = [r["benchmark"] for r in results
                 if r["ppcg"]["parallel"] and r["gpucc"]["parallel"] is False]
    gpucc_only = [r["benchmark"] for r in results
                  if r["gpucc"]["parallel"] and r["ppcg"]["parallel"] is False]
    ratios = [r["compile_time_ratio"] for r in results if r["compile_time_ratio"]]
    gm = geomean(ratios)
    g_match = sum(r["gpucc"]["matches"] is True for r in results)
    g_unchecked = sum(r["gpucc"]["matches"] is None for r in results)
    p_match = sum(r["ppcg"]["matches"] is True for r in results)
    p_mismatch = [f"{r['benchmark']} ({r['ppcg']['kind']})" for r in results
                  if r["ppcg"]["matches"] is False]
    g_mismatch = [f"{r['benchmark']} ({r['gpucc']['kind']})" for r in results
                  if r["gpucc"]["matches"] is False]
    p_unchecked = [r["benchmark"] for r in results if r["ppcg"]["matches"] is None]
    g_compiled = sum(r["gpucc"]["exit"] == 0 for r in results)
    p_compiled = sum(r["ppcg"]["exit"] == 0 for r in results)
    summary = {
        "benchmarks": n,
        "gpucc_compiled": g_compiled,
        "ppcg_compiled": p_compiled,
        "gpucc_parallel": len(g_par),
        "ppcg_parallel": len(p_par),
        "ppcg_parallel_gpucc_single_thread": ppcg_only,
        "gpucc_parallel_ppcg_single_thread": gpucc_only,
        "compile_time_ratio_geomean": round(gm, 3) if gm else None,
        "compile_time_ratio_over": len(ratios),
        "gpucc_matches": g_match,
        "gpucc_not_verified": g_mismatch,
        "gpucc_not_checked": g_unchecked,
        "ppcg_matches": p_match,
        "ppcg_not_verified": p_mismatch,
        "ppcg_not_checked": p_unchecked,
    }
    lines = [
        f"Launches parallel kernels: gpucc in {len(g_par)} of {n}, PPCG in {len(p_par)} of {n}.",
        f"PPCG parallel where gpucc runs every kernel on one thread: "
        f"{', '.join(ppcg_only) or 'none'}; the reverse: {', '.join(gpucc_only) or 'none'}.",
        (f"Compile time gpucc / PPCG: geometric mean {gm:.2f} over the {len(ratios)} "
         f"benchmarks both compile." if gm else "Compile time ratio: no benchmark both compile."),
        f"Matches the C: gpucc {g_match} of {n}"
        + (f" (not verified: {', '.join(g_mismatch)})" if g_mismatch else "")
        + (f" ({g_unchecked} not checked)" if g_unchecked else "")
        + f"; PPCG {p_match} of {n}"
        + (f" (not verified: {', '.join(p_mismatch)})" if p_mismatch else "")
        + (f" (not checked: {', '.join(p_unchecked)})" if p_unchecked else "") + ".",
        "GPU run times at LARGE: not measured (no GPU).",
    ]

    date = datetime.date.today().isoformat()
    commit = args.label or commit_label()
    table = [
        f"# gpucc against PPCG on PolyBench/C 4.2.1 at {args.dataset}",
        "",
        f"{date}, gpucc {commit}, PPCG {', '.join(ppcg_version) or '(no version)'}; "
        f"{cpu_model()}, {os.cpu_count()} cores, no GPU. Compile times are wall times of "
        "one process (gpucc with `--no-verify`). Kernels: those the file defines; single: "
        "gpucc's kernels that one thread runs, PPCG's launches whose grid and block hold "
        "one thread. Match: the generated program prints what the C prints, checked on "
        "gpucc's CPU runtime (gpucc: its default check; PPCG: `gpucc verify` on its joined "
        "files). Load average (1, 5, 15 min) before the run "
        f"{load_before}, after {[round(x, 2) for x in os.getloadavg()]}."
        + (f" {args.note}" if args.note else ""),
        "",
        "| benchmark | gpucc s | gpucc kernels (single) | gpucc match | PPCG s | PPCG exit "
        "| PPCG kernels | PPCG launches (single) | PPCG match | gpucc/PPCG time "
        "| LARGE gpucc ms | LARGE PPCG ms | GPU ratio |",
        "|---|---:|---:|---|---:|---:|---:|---:|---|---:|---:|---:|---:|",
    ]
    for r in results:
        g, p = r["gpucc"], r["ppcg"]
        gk = f"{g['kernels']} ({g['single_thread']})" if g["kernels"] is not None else "-"
        pl = (f"{p['launches']} ({p['single_thread_launches']})"
              if p["launches"] is not None else "-")
        table.append(
            f"| {r['benchmark']} | {fmt_s(g['seconds'], g['exit'])} | {gk} "
            f"| {fmt_match(g)} | {fmt_s(p['seconds'], p['exit'])} "
            f"| {'timeout' if p['exit'] is None else p['exit']} "
            f"| {p['kernels'] if p['kernels'] is not None else '-'} | {pl} "
            f"| {fmt_match(p)} "
            f"| {r['compile_time_ratio'] if r['compile_time_ratio'] is not None else '-'} "
            "| not measured | not measured | - |")
    table += [""] + lines
    failed = [(r["benchmark"], c, r[c]["check"]["verdict"]) for r in results
              for c in ("gpucc", "ppcg") if r[c]["matches"] is False]
    if failed:
        table += ["", "Not verified:", ""]
        table += [f"- {b} ({c}): {why}" for b, c, why in failed]
    not_checked = [(r["benchmark"], c, r[c]["not_checked"]) for r in results
                   for c in ("gpucc", "ppcg") if r[c].get("not_checked")]
    if not_checked:
        table += ["", "Not checked:", ""]
        table += [f"- {b} ({c}): {why}" for b, c, why in not_checked]
    markdown = "\n".join(table) + "\n"
    print()
    print(markdown)

    doc = {
        "benchmark": f"gpucc against PPCG on PolyBench/C 4.2.1 at {args.dataset}, whole files "
                     f"({' '.join(dflags)}); compile time = wall time per process (gpucc "
                     "--no-verify, ppcg --target=cuda); matches = the generated program "
                     "prints what the C prints on gpucc's CPU runtime (gpucc: its default "
                     "check with --link utilities/polybench.c; PPCG: gpucc verify on "
                     "X_host.cu + X_kernel.hu + X_kernel.cu joined, the -D macros as "
                     "#defines); GPU times not measured",
        "date": date,
        "commit": commit,
        "gpucc": gpucc_version,
        "ppcg": {"path": os.path.abspath(args.ppcg), "version": ppcg_version,
                 "options": ["--target=cuda"]},
        "dataset": args.dataset,
        "timeout_s": args.timeout,
        "machine": {"cpu": cpu_model(), "cores": os.cpu_count(), "os": platform.platform(),
                    "gpu": None, "load_average_before": load_before,
                    "load_average_after": [round(x, 2) for x in os.getloadavg()]},
        "note": args.note,
        "summary": summary,
        "summary_lines": lines,
        "results": results,
    }
    path = write_result(f"ppcg-compare-{args.dataset.lower()}", date, commit, doc)
    md = os.path.splitext(path)[0] + ".md"
    with open(md, "w") as f:
        f.write(markdown)
    print(f"wrote {os.path.relpath(path, ROOT)} and {os.path.relpath(md, ROOT)}")


if __name__ == "__main__":
    main()
