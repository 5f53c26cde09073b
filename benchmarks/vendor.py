#!/usr/bin/env python3
"""gpucc against cuBLAS and the roofline (issue 19).

For each problem (SGEMM and DGEMM at 1024, 2048, 4096, 8192, two rectangular shapes and
4000^3 (no tile divides it),
SGEMV y = A x and SGEMV^T y = A^T x at 4096^2, 8192^2, 16384^2, a transpose and a 2-D
5-point Jacobi at 8192^2), two gpucc variants: its default compile (no recipe, the
strategy gpucc chooses: `gpucc FILE.c -o OUT.cu`) and the shipped recipe named on the
first line of the C file in benchmarks/vendor/ (`// gpucc-args: --recipe recipes/...`);
beside them cuBLAS (GEMM, GEMV) and the roofline: the device's FP32 or FP64 peak and its
DRAM bandwidth (a measured device-to-device copy, or benchmarks/devices/<device>.toml).

  python3 benchmarks/vendor.py --mode emulator   (default where no GPU is found)
      `gpucc emulate --json` for both variants of every problem: PREDICTED times (the
      emulator's, from the SASS where nvcc is installed, else from the kernel IR; not
      measurements), with beside them the figures of the newest `--mode gpu` results file
      in benchmarks/results/, if there is one. cuBLAS: not measured. Python's standard
      library only; about 5 s a problem (the emulation does not grow with the sizes).

  python3 benchmarks/vendor.py --mode gpu        (an NVIDIA GPU, nvcc, CuPy or PyTorch)
      gpucc's kernels, checked and timed on the GPU: where the C reference is cheap (at most
      --verify-limit statement instances) by `gpucc verify --device gpu --time --runs N`
      (checked against the C, then each launch timed with CUDA events: a warm-up, the
      median of N); larger (the GEMMs above 1024^3, Jacobi) by the same timing without the
      C reference: the .cu is built by nvcc with gpucc's own launch wrapper
      (src/verify/gpu_runtime.h: a warm-up, then each launch's median of N runs between
      CUDA events) and a driver that fills the inputs, runs the code once, writes its
      outputs (compared with CuPy's or PyTorch's result on the same inputs) and then times
      it. cuBLAS through CuPy (cupy.cublas.gemm/gemv, TF32 off: CUPY_TF32=0,
      NVIDIA_TF32_OVERRIDE=0) or PyTorch (addmm_/mv, allow_tf32 False): a warm-up of 3,
      then the median of N runs each between two CUDA events. The copy bandwidth: a 1 GiB
      device-to-device copy, bytes read and written over its median time. Every GPU step
      runs in its own process under a timeout; a step that fails is recorded with its
      error and the run goes on.

Writes benchmarks/results/vendor-<device>-<date>-<commit>.json (gpu: the GPU's name;
emulator: `<device>-emulated`) after every problem, prints a Markdown table, and with
--plot PATH an SVG bar chart of each problem's share of the roofline.
`--from RESULTS.json` prints the table (and the plot) of recorded results without running.

Usage: cargo build --release && python3 benchmarks/vendor.py [--mode emulator|gpu]
       [--device h100] [--only TEXT] [--runs 10] [--budget SECONDS] [--plot OUT.svg]
       [--smoke] [--from RESULTS.json]
"""
import argparse
import concurrent.futures
import datetime
import glob
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from deps_time import ROOT, case_args, commit_label, cpu_model, write_result
from calibrate import verify_time

SOURCES = "benchmarks/vendor"
GPU_RUNTIME = os.path.join(ROOT, "src", "verify", "gpu_runtime.h")

# Timeouts (seconds) of the steps of one problem.
EMULATE_TIMEOUT = 300
COMPILE_TIMEOUT = 300   # gpucc FILE.c -o OUT.cu (the default checks itself on the CPU)
VERIFY_TIMEOUT = 300    # gpucc verify --device gpu --time (nvcc, the C reference, the GPU)
NVCC_TIMEOUT = 300
RUN_TIMEOUT = 180       # the timing driver: fill, run once, write outputs, time
WORKER_TIMEOUT = 300    # CuPy/PyTorch: reference, comparison, cuBLAS timing
COPY_BYTES = 1 << 30

# Relative tolerance of the comparison with the vendor's result at full size, of the larger
# of the element and 1% of the array's largest value (gpucc verify's rule). gpucc verify
# allows 1e-4 for float; sums of up to 16384 float terms in another order than cuBLAS's
# differ by more than that at these sizes, so float gets 1e-3 (a wrong kernel is off by
# whole terms: 1e-1 and more).
TOLERANCE = {"float": 1e-3, "double": 1e-9}
ELEMENT = {"float": 4, "double": 8}


def gemm(name, source, dtype, m, n, k):
    return {"problem": name, "kind": "gemm", "source": source, "dtype": dtype,
            "function": os.path.basename(source)[:-2],
            "size": f"{m}x{n}x{k}", "defines": {"M": m, "N": n, "K": k}}


def gemv(name, kind, source, n):
    return {"problem": name, "kind": kind, "source": source, "dtype": "float",
            "function": os.path.basename(source)[:-2],
            "size": f"{n}x{n}", "defines": {"M": n, "N": n}}


def problems(smoke=False):
    """Every problem; with smoke, the sizes divided by 16 and 2 time steps (a quick check
    of the machinery, not a benchmark)."""
    z = (lambda n: n // 16) if smoke else (lambda n: n)
    out = []
    for name, source, dtype in [("SGEMM", f"{SOURCES}/sgemm.c", "float"),
                                ("DGEMM", f"{SOURCES}/dgemm.c", "double")]:
        for n in (1024, 2048, 4096, 8192):
            out.append(gemm(name, source, dtype, z(n), z(n), z(n)))
        # C of M x N += A of M x K times B of K x N: a tall C with a long k, a wide flat C
        # with a longer k.
        out.append(gemm(name, source, dtype, z(4096), z(1024), z(4096)))
        out.append(gemm(name, source, dtype, z(1024), z(4096), z(8192)))
        # A size no tile divides: the last tiles are partial, and the kernels' full tiles
        # run a second body without the guards (src/codegen/fulltiles.rs).
        out.append(gemm(name, source, dtype, z(4000), z(4000), z(4000)))
    for n in (4096, 8192, 16384):
        out.append(gemv("SGEMV", "gemv", f"{SOURCES}/sgemv.c", z(n)))
    for n in (4096, 8192, 16384):
        out.append(gemv("SGEMV^T", "gemv_t", f"{SOURCES}/sgemv_t.c", z(n)))
    n, steps = z(8192), 2 if smoke else 10
    out.append({"problem": "transpose", "kind": "transpose", "source": f"{SOURCES}/transpose.c",
                "dtype": "float", "function": "transpose", "size": f"{n}x{n}",
                "defines": {"ROWS": n, "COLS": n}})
    out.append({"problem": "Jacobi 2-D", "kind": "jacobi", "source": f"{SOURCES}/jacobi2d.c",
                "dtype": "float", "function": "jacobi2d", "size": f"{n}x{n}, {steps} steps",
                "defines": {"N": n, "T": steps}})
    for p in out:
        p["recipe_args"] = case_args(os.path.join(ROOT, p["source"]))
        p["recipe"] = p["recipe_args"][p["recipe_args"].index("--recipe") + 1]
        p["flops"], p["bytes"] = work(p)
    return out


def work(p):
    """Floating-point operations and the least DRAM traffic (each array read once, each
    written once; C of a GEMM read and written) of a problem, as written in its C file."""
    d, e = p["defines"], ELEMENT[p["dtype"]]
    if p["kind"] == "gemm":
        m, n, k = d["M"], d["N"], d["K"]
        return 2 * m * n * k, e * (m * k + k * n + 2 * m * n)
    if p["kind"] in ("gemv", "gemv_t"):
        m, n = d["M"], d["N"]
        return 2 * m * n, e * (m * n + m + n)
    if p["kind"] == "transpose":
        return 0, 2 * e * d["ROWS"] * d["COLS"]
    # Jacobi: per step the stencil reads A and writes B's interior, the copy reads B's
    # interior and writes A's: 4 interior-sized arrays; 4 additions and 1 product a point.
    inner = (d["N"] - 2) ** 2
    return 5 * inner * d["T"], 4 * e * inner * d["T"]


def instances(p):
    """Statement instances of the C reference (what its time on the CPU grows with)."""
    d = p["defines"]
    if p["kind"] == "gemm":
        return d["M"] * d["N"] * d["K"]
    if p["kind"] in ("gemv", "gemv_t"):
        return d["M"] * d["N"]
    if p["kind"] == "transpose":
        return d["ROWS"] * d["COLS"]
    return 2 * d["T"] * d["N"] ** 2


def defines(p):
    return [x for k, v in p["defines"].items() for x in ("-D", f"{k}={v}")]


def variant_args(p, variant):
    return p["recipe_args"] if variant == "recipe" else []


VARIANTS = ("default", "recipe")


def variant_label(p, variant):
    return "gpucc default" if variant == "default" else f"gpucc {os.path.basename(p['recipe'])}"


# ---------------------------------------------------------------------------------------
# The device description and the roofline


def read_device(name):
    """benchmarks/devices/<name>.toml (or the file listing NAME among its aliases)."""
    folder = os.path.join(ROOT, "benchmarks", "devices")
    for path in sorted(glob.glob(os.path.join(folder, "*.toml"))):
        doc = parse_toml(path)
        if os.path.basename(path)[:-5] == name or name in doc.get("aliases", []):
            doc["_file"] = os.path.relpath(path, ROOT)
            return doc
    sys.exit(f"no device description {name} in benchmarks/devices/")


def parse_toml(path):
    try:
        import tomllib
        with open(path, "rb") as f:
            return tomllib.load(f)
    except ImportError:
        pass
    # Python < 3.11: the few keys read here, by pattern.
    with open(path) as f:
        text = f.read()
    doc = {"throughput": {}, "limits": {}, "resources": {"dram": {}}}
    m = re.search(r'^name\s*=\s*"([^"]*)"', text, re.M)
    doc["name"] = m.group(1) if m else path
    m = re.search(r'^aliases\s*=\s*\[([^\]]*)\]', text, re.M)
    doc["aliases"] = re.findall(r'"([^"]*)"', m.group(1)) if m else []
    for key, table in [("sms", "limits"), ("sm_clock_mhz", "throughput"),
                       ("memory_bandwidth_gb_s", "throughput"),
                       ("fp32_lanes_per_sm", "throughput"), ("fp64_lanes_per_sm", "throughput")]:
        m = re.search(rf'^{key}\s*=\s*([0-9.]+)', text, re.M)
        doc[table][key] = float(m.group(1))
    m = re.search(r'^dram\s*=\s*\{[^}]*?gap\s*=\s*([0-9.]+)', text, re.M)
    doc["resources"]["dram"]["gap"] = float(m.group(1))
    return doc


def roofline(device, copy=None):
    """Peaks of the device: FP32 and FP64 (CUDA cores: lanes x 2 flops x clock) and the DRAM
    bandwidth: the measured copy when given, else the one the device file's DRAM gap gives
    (the H100's was measured by benchmarks/micro: a streaming read)."""
    t, sms = device["throughput"], device["limits"]["sms"]
    clock = t["sm_clock_mhz"] * 1e6
    doc = {
        "device_file": device["_file"],
        "fp32_gflops": round(sms * t["fp32_lanes_per_sm"] * 2 * clock / 1e9, 1),
        "fp64_gflops": round(sms * t["fp64_lanes_per_sm"] * 2 * clock / 1e9, 1),
        "peaks_from": f"{device['_file']}: SMs x lanes x 2 flops x sm_clock_mhz (CUDA cores; "
                      "the tensor cores are not counted: cuBLAS's DGEMM on an H100 may use the "
                      "FP64 tensor cores, so its share can pass 100%)",
        "spec_bandwidth_gb_s": t["memory_bandwidth_gb_s"],
    }
    gap = device["resources"]["dram"]["gap"]
    if copy and copy.get("gb_s"):
        doc["bandwidth_gb_s"] = copy["gb_s"]
        doc["bandwidth_from"] = "device-to-device copy measured in this run (bytes read and written)"
    else:
        doc["bandwidth_gb_s"] = round(32 * sms * clock / gap / 1e9, 1)
        doc["bandwidth_from"] = (f"{device['_file']}: 32-byte sectors / dram gap ({gap} cycles) "
                                 "x SMs x clock (no copy measured)")
    return doc


def rates(p, time_us, roof):
    """GFLOP/s, GB/s (least traffic / time) and share of the roofline (the roofline's time,
    max(flops / peak, bytes / bandwidth), over the time)."""
    if not time_us:
        return {}
    peak = roof["fp64_gflops"] if p["dtype"] == "double" else roof["fp32_gflops"]
    t_roof_us = max(p["flops"] / (peak * 1e3), p["bytes"] / (roof["bandwidth_gb_s"] * 1e3))
    return {"gflops": round(p["flops"] / (time_us * 1e3), 2),
            "gb_s": round(p["bytes"] / (time_us * 1e3), 2),
            "roofline_us": round(t_roof_us, 3),
            "roofline_share": round(t_roof_us / time_us, 4)}


# ---------------------------------------------------------------------------------------
# Emulator mode


def emulate_one(gpucc, p, variant, device):
    cmd = [gpucc, "emulate", p["source"], *defines(p), *variant_args(p, variant),
           "--device", device, "--json"]
    start = time.perf_counter()
    try:
        r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=EMULATE_TIMEOUT)
    except subprocess.TimeoutExpired:
        return {"status": "failed", "error": f"gpucc emulate timed out after {EMULATE_TIMEOUT} s"}
    seconds = round(time.perf_counter() - start, 2)
    if r.returncode != 0:
        return {"status": "failed", "error": (r.stderr.strip().splitlines() or ["?"])[-1],
                "exit": r.returncode}
    out = json.loads(r.stdout)
    return {
        "status": "predicted (emulated)",
        "command": " ".join(["gpucc", *cmd[1:]]),
        "time_us": round(out["predicted_time_us"], 3),
        "bottleneck": out["bottleneck"],
        "instruction_source": out["instruction_source"],
        "registers": out.get("registers"),
        "kernels": [{k: kern.get(k) for k in ("name", "launches", "blocks", "threads_per_block",
                                              "registers_per_thread", "occupancy", "bottleneck",
                                              "predicted_time_us")}
                    for kern in out["kernels"]],
        "emulate_s": seconds,
    }


def last_gpu_results(device_file):
    """The newest `--mode gpu` results file, preferring one on the same device description."""
    best = None
    for path in glob.glob(os.path.join(ROOT, "benchmarks", "results", "vendor-*.json")):
        try:
            with open(path) as f:
                doc = json.load(f)
        except (OSError, ValueError):
            continue
        if doc.get("mode") != "gpu" or doc.get("smoke"):
            continue
        key = (doc.get("roofline", {}).get("device_file") == device_file, doc.get("date", ""),
               os.path.getmtime(path))
        if best is None or key > best[0]:
            best = (key, path, doc)
    return (best[1], best[2]) if best else (None, None)


def run_emulator(args, gpucc):
    device = read_device(args.device)
    roof = roofline(device)
    last_path, last = last_gpu_results(device["_file"])
    measured = {}
    if last:
        for e in last["entries"]:
            measured[(e["problem"], e["size"])] = e
    doc = header(args, "emulator", device["name"] + " (emulated)", roof)
    doc["vendor_library"] = "not measured (no GPU: emulator mode)"
    doc["last_measured_file"] = os.path.relpath(last_path, ROOT) if last_path else None
    doc["machine"] = {"cpu": cpu_model(), "cores": os.cpu_count()}
    slug = f"{os.path.basename(device['_file'])[:-5]}-emulated"
    start = time.perf_counter()
    entries = selected(args)
    jobs = [(p, v) for p in entries for v in VARIANTS]
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futures = {(p["problem"], p["size"], v): pool.submit(emulate_one, gpucc, p, v, args.device)
                   for p, v in jobs}
        for k, p in enumerate(entries):
            e = entry_doc(p)
            for v in VARIANTS:
                res = futures[(p["problem"], p["size"], v)].result()
                res.update(rates(p, res.get("time_us"), roof))
                e["variants"][v] = res
                print(f"[{k + 1}/{len(entries)}] {p['problem']} {p['size']} {v}: "
                      f"{fmt_us(res.get('time_us'))} predicted ({res.get('emulate_s', '-')} s)",
                      file=sys.stderr)
            e["vendor"] = {"status": "not measured"}
            prev = measured.get((p["problem"], p["size"]))
            if prev:
                e["last_measured"] = {
                    "device": last["device"], "date": last["date"], "commit": last["commit"],
                    "recipe": prev.get("recipe"),
                    "variants": {v: {x: prev["variants"].get(v, {}).get(x)
                                     for x in ("status", "time_us", "roofline_share", "vs_vendor")}
                                 for v in VARIANTS},
                    "vendor": {x: prev.get("vendor", {}).get(x)
                               for x in ("status", "time_us", "roofline_share")},
                }
            doc["entries"].append(e)
    doc["seconds"] = round(time.perf_counter() - start, 1)
    return doc, slug


# ---------------------------------------------------------------------------------------
# GPU mode


def find_nvcc():
    for path in [os.environ.get("GPUCC_NVCC"),
                 os.path.join(ROOT, ".nvidia", "nvidia", "cu13", "bin", "nvcc"),
                 shutil.which("nvcc"), "/usr/local/cuda/bin/nvcc"]:
        if path and os.path.exists(path):
            return path
    return None


def nvidia_smi(query):
    try:
        r = subprocess.run(["nvidia-smi", f"--query-gpu={query}", "--format=csv,noheader"],
                           capture_output=True, text=True, timeout=30)
        return r.stdout.strip().splitlines()[0].strip() if r.returncode == 0 else None
    except (OSError, subprocess.TimeoutExpired, IndexError):
        return None


def gpu_present():
    return nvidia_smi("name") is not None


def device_for(gpu_name):
    name = (gpu_name or "").upper()
    for key in ("H200", "H100", "A100", "V100"):
        if key in name:
            return key.lower()
    return "h100"


def rewrite_launches(cu):
    """`kernel<<<grid, block>>>(args)` -> `gpucc_launch<false>("kernel", kernel, grid, block,
    args)`, as gpucc verify does (src/verify/rewrite.rs), so that src/verify/gpu_runtime.h
    times every launch."""
    out, pos = [], 0
    for m in re.finditer(r"\b([A-Za-z_]\w*)\s*<<<(.*?)>>>\s*\(", cu, re.S):
        parts, depth, cur = [], 0, ""
        for ch in m.group(2):
            if ch == "," and depth == 0:
                parts.append(cur.strip())
                cur = ""
                continue
            depth += ch in "([{"
            depth -= ch in ")]}"
            cur += ch
        parts.append(cur.strip())
        if len(parts) > 2 and all(x in ("0", "0u") for x in parts[2:]):
            parts = parts[:2]
        if len(parts) != 2:
            raise ValueError(f"launch of {m.group(1)} with <<<{m.group(2)}>>>: "
                             "only a grid and a block are timed here")
        rest = cu[m.end():].lstrip()
        sep = "" if rest.startswith(")") else ", "
        out.append(cu[pos:m.start()])
        out.append(f'gpucc_launch<false>("{m.group(1)}", {m.group(1)}, {parts[0]}, {parts[1]}{sep}')
        pos = m.end()
    out.append(cu[pos:])
    return "".join(out)


def arrays(p):
    """The function's arrays: name, dimensions (macros), seed of its pseudo-random fill (0:
    zeros), whether the check compares it."""
    d = p["kind"]
    if d == "gemm":
        return [("A", ["M", "K"], 1, False), ("B", ["K", "N"], 2, False), ("C", ["M", "N"], 0, True)]
    if d == "gemv":
        return [("A", ["M", "N"], 1, False), ("x", ["N"], 2, False), ("y", ["M"], 0, True)]
    if d == "gemv_t":
        return [("A", ["M", "N"], 1, False), ("x", ["M"], 2, False), ("y", ["N"], 0, True)]
    if d == "transpose":
        return [("A", ["ROWS", "COLS"], 1, False), ("B", ["COLS", "ROWS"], 0, True)]
    return [("A", ["N", "N"], 1, True), ("B", ["N", "N"], 0, True)]


DRIVER = r"""
/* benchmarks/vendor.py: the timing driver, appended to the .cu gpucc wrote. Inputs are
   filled by a hash of the element's index (vendor.py makes the same on the GPU), the code
   runs once and writes its outputs for the comparison, then runs again with every launch
   timed by src/verify/gpu_runtime.h (a warm-up, then the median of RUNS). */
#include <cstdint>
template <class ELT> static ELT *vendor_array(size_t n, unsigned seed) {
  ELT *p = (ELT *)malloc(n * sizeof(ELT));
  if (!p) { fprintf(stderr, "vendor driver: out of host memory\n"); exit(2); }
  for (size_t i = 0; i < n; i++) {
    uint32_t h = (uint32_t)(i * 2654435761ull) + seed * 40503u;
    p[i] = seed ? (ELT)(h >> 8) * (ELT)(1.0 / 16777216.0) - (ELT)0.5 : (ELT)0;
  }
  return p;
}
static void vendor_write(const char *path, const void *p, size_t bytes) {
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(p, 1, bytes, f) != bytes || fclose(f) != 0) {
    fprintf(stderr, "vendor driver: cannot write %s\n", path);
    exit(2);
  }
}
int main(int argc, char **argv) {
  if (argc < 3) { fprintf(stderr, "usage: %s OUTPUT_PREFIX RUNS\n", argv[0]); return 2; }
  char path[4096];
@DECLS@
  @CALL@;
  GPUCC_CHECK(cudaDeviceSynchronize());
@WRITES@
  gpucc_time_runs = atoi(argv[2]);
  @CALL@;
  GPUCC_CHECK(cudaDeviceSynchronize());
  gpucc_print_times();
  return 0;
}
"""


def driver(p):
    t = p["dtype"]
    decls, writes, names = [], [], []
    for name, dims, seed, out in arrays(p):
        count = " * ".join(f"(size_t){x}" for x in dims)
        if len(dims) == 1:
            decls.append(f"  {t} *{name} = vendor_array<{t}>({count}, {seed}u);")
        else:
            decls.append(f"  {t} (*{name})[{dims[1]}] = ({t} (*)[{dims[1]}])"
                         f"vendor_array<{t}>({count}, {seed}u);")
        names.append(name)
        if out:
            writes.append(f'  snprintf(path, sizeof path, "%s.{name}.bin", argv[1]);\n'
                          f"  vendor_write(path, {name}, sizeof({t}) * {count});")
    call = f"{p['function']}({', '.join(names)})"
    return (DRIVER.replace("@DECLS@", "\n".join(decls)).replace("@CALL@", call)
            .replace("@WRITES@", "\n".join(writes)))


def gpu_arch():
    cap = nvidia_smi("compute_cap")
    if cap and re.fullmatch(r"\d+\.\d+", cap):
        return "sm_" + cap.replace(".", "")
    return "sm_90"


def run_step(cmd, timeout, what, **kw):
    """Runs a step; returns (CompletedProcess or None, error or None)."""
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kw)
    except subprocess.TimeoutExpired:
        return None, f"{what} timed out after {timeout} s"
    except OSError as e:
        return None, f"{what} could not run: {e}"
    if r.returncode != 0:
        tail = (r.stdout + r.stderr).strip().splitlines()[-6:]
        return r, f"{what} failed (exit {r.returncode}): " + " | ".join(tail)
    return r, None


def compile_cu(gpucc, p, variant, cu):
    """gpucc FILE.c [--recipe R] -D ... -o OUT.cu; returns (record, error)."""
    cmd = [gpucc, p["source"], *defines(p), *variant_args(p, variant), "-o", cu]
    start = time.perf_counter()
    r, err = run_step(cmd, COMPILE_TIMEOUT, "gpucc", cwd=ROOT)
    rec = {"compile": " ".join(["gpucc", *cmd[1:-2]]),
           "compile_s": round(time.perf_counter() - start, 1)}
    if r is not None:
        chose = [l[len("gpucc: chose "):] for l in r.stderr.splitlines() if l.startswith("gpucc: chose ")]
        if chose:
            rec["strategy"] = chose[0]
    return rec, err


def prepare_timed(gpucc, nvcc, arch, p, variant, tmp):
    """Compiles the variant with gpucc, then the timing driver with nvcc; returns a record
    with `exe` on success, `error` otherwise (CPU only: runs in parallel with the GPU)."""
    cu = os.path.join(tmp, f"{variant}.cu")
    rec, err = compile_cu(gpucc, p, variant, cu)
    if err:
        return {**rec, "status": "failed", "error": err}
    try:
        with open(cu) as f:
            text = rewrite_launches(f.read()) + driver(p)
    except (OSError, ValueError) as e:
        return {**rec, "status": "failed", "error": f"timing driver: {e}"}
    timed = os.path.join(tmp, f"{variant}_timed.cu")
    with open(timed, "w") as f:
        f.write(text)
    exe = os.path.join(tmp, f"{variant}_timed")
    cmd = [nvcc, "-std=c++17", "-O3", "-w", "-DGPUCC_GPU", f"-arch={arch}"]
    lib = os.path.join(os.path.dirname(os.path.dirname(nvcc)), "lib")
    if os.path.exists(os.path.join(lib, "libcudart_static.a")):
        cmd.append(f"-L{lib}")
    cmd += ["-include", GPU_RUNTIME, timed, "-o", exe, "-lm"]
    start = time.perf_counter()
    _, err = run_step(cmd, NVCC_TIMEOUT, "nvcc")
    rec["nvcc_s"] = round(time.perf_counter() - start, 1)
    if err:
        return {**rec, "status": "failed", "error": err}
    return {**rec, "exe": exe}


def parse_times(text):
    """gpu_runtime.h's `gpucc-time NAME LAUNCHES TOTAL_US` lines."""
    kernels = []
    for m in re.finditer(r"^gpucc-time (\S+) (\d+) ([0-9.]+)$", text, re.M):
        kernels.append({"kernel": m.group(1), "launches": int(m.group(2)), "us": float(m.group(3))})
    return kernels


def run_timed(rec, p, variant, tmp, runs):
    prefix = os.path.join(tmp, variant)
    r, err = run_step([rec.pop("exe"), prefix, str(runs)], RUN_TIMEOUT, "the timing driver")
    if err:
        return {**rec, "status": "failed", "error": err}
    kernels = parse_times(r.stdout)
    if not kernels:
        return {**rec, "status": "failed", "error": "the timing driver printed no times"}
    outputs = [{"array": name, "path": f"{prefix}.{name}.bin",
                "shape": [p["defines"][x] for x in dims]}
               for name, dims, _, out in arrays(p) if out]
    return {**rec, "status": "measured", "method": "nvcc + src/verify/gpu_runtime.h timing driver",
            "check": "pending: compared with the vendor's result", "outputs": outputs,
            "time_us": round(sum(k["us"] for k in kernels), 3), "kernels": kernels}


def run_verify(gpucc, p, variant, tmp, runs):
    """gpucc verify --device gpu --time: checked against the C, then timed."""
    rec = {}
    if variant == "default":
        cu = os.path.join(tmp, "default.cu")
        rec, err = compile_cu(gpucc, p, variant, cu)
        if err:
            return {**rec, "status": "failed", "error": err}
        cmd = [gpucc, "verify", p["source"], cu, *defines(p)]
    else:
        cmd = [gpucc, "verify", p["source"], *defines(p), *variant_args(p, variant)]
    cmd += ["--device", "gpu", "--time", "--runs", str(runs)]
    start = time.perf_counter()
    r, err = run_step(cmd, VERIFY_TIMEOUT, "gpucc verify", cwd=ROOT)
    rec["verify"] = " ".join(["gpucc", *cmd[1:]]).replace(tmp + "/", "")
    rec["verify_s"] = round(time.perf_counter() - start, 1)
    if err:
        return {**rec, "status": "failed", "error": err}
    timed = verify_time(r.stdout)
    if not timed:
        return {**rec, "status": "failed", "error": "gpucc verify printed no kernel time"}
    total, _, kernels = timed
    return {**rec, "status": "measured", "method": "gpucc verify --device gpu --time",
            "check": "verified against the C by gpucc verify", "time_us": total,
            "kernels": kernels}


def run_worker(spec, timeout):
    """One GPU step of the vendor library in its own process (a hang or a crash there is
    an error of this problem only)."""
    env = dict(os.environ, CUPY_TF32="0", NVIDIA_TF32_OVERRIDE="0")
    try:
        r = subprocess.run([sys.executable, os.path.abspath(__file__), "_worker"],
                           input=json.dumps(spec), capture_output=True, text=True,
                           timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return {"status": "failed", "error": f"timed out after {timeout} s"}
    if r.returncode != 0 or not r.stdout.strip():
        tail = r.stderr.strip().splitlines()[-4:]
        return {"status": "failed", "error": f"exit {r.returncode}: " + " | ".join(tail)}
    return json.loads(r.stdout.strip().splitlines()[-1])


def run_gpu(args, gpucc):
    gpu_name = nvidia_smi("name")
    if not gpu_name:
        sys.exit("--mode gpu: no NVIDIA GPU found (nvidia-smi); use --mode emulator")
    nvcc = find_nvcc()
    if not nvcc:
        sys.exit("--mode gpu: nvcc not found (GPUCC_NVCC, .nvidia/ from "
                 "scripts/install-cuda-toolchain, PATH or /usr/local/cuda/bin)")
    probe = run_worker({"kind": "probe", "backend": args.vendor}, 120)
    if probe.get("status") == "failed":
        sys.exit("--mode gpu needs CuPy or PyTorch with CUDA in this Python "
                 f"({sys.executable}): {probe['error']}")
    device = read_device(args.device or device_for(gpu_name))
    arch = gpu_arch()
    start = time.perf_counter()
    deadline = start + args.budget if args.budget else None
    print(f"{gpu_name}, {arch}, nvcc {nvcc}, vendor library: {probe['library']}", file=sys.stderr)

    copy = run_worker({"kind": "copy", "backend": args.vendor, "bytes": COPY_BYTES,
                       "runs": args.runs}, WORKER_TIMEOUT)
    print(f"device-to-device copy: {copy.get('gb_s', copy.get('error'))} GB/s", file=sys.stderr)
    roof = roofline(device, copy if copy.get("status") == "measured" else None)
    doc = header(args, "gpu", gpu_name, roof)
    doc.update({"driver": nvidia_smi("driver_version"), "arch": arch, "nvcc": nvcc_version(nvcc),
                "vendor_library": probe["library"], "copy": copy, "runs": args.runs,
                "verify_limit": args.verify_limit})
    slug = re.sub(r"[^a-z0-9]+", "-", gpu_name.lower()).strip("-")
    entries = selected(args)
    write_doc(args, doc, slug)  # the copy and the roofline, should the run be cut short
    scratch = tempfile.mkdtemp(prefix="gpucc-vendor-")
    try:
        # The builds of the timing drivers (gpucc, nvcc: CPU only) run ahead, in parallel;
        # the GPU runs one thing at a time, in order.
        pool = concurrent.futures.ThreadPoolExecutor(args.jobs)
        builds = {}
        for k, p in enumerate(entries):
            os.makedirs(os.path.join(scratch, str(k)))
            if instances(p) > args.verify_limit:
                for v in VARIANTS:
                    builds[(k, v)] = pool.submit(prepare_timed, gpucc, nvcc, arch, p, v,
                                                 os.path.join(scratch, str(k)))
        for k, p in enumerate(entries):
            e = entry_doc(p)
            tmp = os.path.join(scratch, str(k))
            if deadline and time.perf_counter() > deadline:
                for v in VARIANTS:
                    e["variants"][v] = {"status": "skipped", "error": "--budget spent"}
                e["vendor"] = {"status": "skipped", "error": "--budget spent"}
                doc["entries"].append(e)
                continue
            to_check = []
            for v in VARIANTS:
                if (k, v) in builds:
                    rec = builds[(k, v)].result()
                    if "exe" in rec:
                        rec = run_timed(rec, p, v, tmp, args.runs)
                    to_check += [{"variant": v, **o} for o in rec.get("outputs", [])]
                else:
                    rec = run_verify(gpucc, p, v, tmp, args.runs)
                e["variants"][v] = rec
            spec = {"kind": p["kind"], "backend": args.vendor, "dtype": p["dtype"],
                    "defines": p["defines"], "runs": args.runs, "check": to_check,
                    "tolerance": TOLERANCE[p["dtype"]],
                    "time": p["kind"] in ("gemm", "gemv", "gemv_t")}
            res = run_worker(spec, WORKER_TIMEOUT)
            checks = res.pop("checks", {})
            for v in VARIANTS:
                rec = e["variants"][v]
                rec.pop("outputs", None)
                if rec.get("check", "").startswith("pending"):
                    c = checks.get(v)
                    if not c:
                        rec["status"] = "measured (not checked)"
                        rec["check"] = "not checked: " + res.get("error", "no comparison made")
                    else:
                        rec["check"] = (f"{'same' if c['passed'] else 'DIFFERENT'} as "
                                        f"{res.get('library', 'the vendor library')} on the same "
                                        f"inputs at these sizes: max relative error "
                                        f"{c['max_relative_error']:.2e} (tolerance {spec['tolerance']:g})")
                        if not c["passed"]:
                            rec["status"] = "failed"
                            rec["error"] = "wrong result: " + rec["check"]
                timed = rec.get("status", "").startswith("measured")
                rec.update(rates(p, rec.get("time_us") if timed else None, roof))
            if spec["time"]:
                e["vendor"] = {**res, **rates(p, res.get("time_us"), roof)}
                for v in VARIANTS:
                    rec = e["variants"][v]
                    if rec.get("status", "").startswith("measured") and res.get("time_us"):
                        rec["vs_vendor"] = round(res["time_us"] / rec["time_us"], 4)
            else:
                e["vendor"] = {"status": "none: compared with the copy bandwidth"}
                if res.get("status") == "failed":
                    e["vendor"]["error"] = res.get("error")
            doc["entries"].append(e)
            summary = ", ".join(f"{v} {fmt_us(e['variants'][v].get('time_us'))} "
                                f"{e['variants'][v]['status']}" for v in VARIANTS)
            print(f"[{k + 1}/{len(entries)}] {p['problem']} {p['size']}: {summary}; vendor "
                  f"{fmt_us(e['vendor'].get('time_us'))} ({time.perf_counter() - start:.0f} s)",
                  file=sys.stderr)
            for name in os.listdir(tmp):
                if name.endswith(".bin"):
                    os.remove(os.path.join(tmp, name))
            doc["seconds"] = round(time.perf_counter() - start, 1)
            write_doc(args, doc, slug)
        pool.shutdown(cancel_futures=True)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    doc["seconds"] = round(time.perf_counter() - start, 1)
    return doc, slug


def nvcc_version(nvcc):
    try:
        r = subprocess.run([nvcc, "--version"], capture_output=True, text=True, timeout=30)
        return r.stdout.strip().splitlines()[-1]
    except (OSError, subprocess.TimeoutExpired, IndexError):
        return "unknown"


# ---------------------------------------------------------------------------------------
# The vendor side (GPU mode only: CuPy or PyTorch, imported here and nowhere else)


class Backend:
    def __init__(self, which):
        self.np = None
        errors = []
        for name in (["cupy", "torch"] if which == "auto" else [which]):
            try:
                if name == "cupy":
                    import cupy
                    cupy.cuda.runtime.getDeviceCount()
                    self.name, self.xp = "cupy", cupy
                    self.library = f"CuPy {cupy.__version__} (cuBLAS {self.cublas_version()})"
                else:
                    import torch
                    if not torch.cuda.is_available():
                        raise RuntimeError("torch.cuda.is_available() is False")
                    torch.backends.cuda.matmul.allow_tf32 = False
                    torch.set_float32_matmul_precision("highest")
                    self.name, self.xp = "torch", torch
                    self.library = (f"PyTorch {torch.__version__} (CUDA {torch.version.cuda}, "
                                    "cuBLAS)")
                import numpy
                self.np = numpy
                return
            except Exception as e:  # noqa: BLE001 (any failure means: try the next)
                errors.append(f"{name}: {e}")
        raise RuntimeError("neither CuPy nor PyTorch can use the GPU: " + "; ".join(errors))

    def cublas_version(self):
        try:
            from cupy_backends.cuda.libs import cublas
            from cupy.cuda import device
            return str(cublas.getVersion(device.get_cublas_handle()))
        except Exception:  # noqa: BLE001
            return "version unknown"

    def dtype(self, t):
        return self.xp.float32 if t == "float" else self.xp.float64

    def filled(self, shape, seed, t):
        """The driver's fill: element i is (h >> 8) / 2^24 - 0.5, h = (i * 2654435761 +
        seed * 40503) mod 2^32 (exact in float and double)."""
        xp, n = self.xp, 1
        for s in shape:
            n *= s
        if seed == 0:
            return self.zeros(shape, t)
        if self.name == "cupy":
            i = xp.arange(n, dtype=xp.int64)
        else:
            i = xp.arange(n, dtype=xp.int64, device="cuda")
        h = ((i * 2654435761) & 0xFFFFFFFF) + seed * 40503
        h = (h & 0xFFFFFFFF) >> 8
        v = h.astype(self.dtype(t)) if self.name == "cupy" else h.to(self.dtype(t))
        return (v * (1.0 / 16777216.0) - 0.5).reshape(shape)

    def zeros(self, shape, t):
        if self.name == "cupy":
            return self.xp.zeros(shape, dtype=self.dtype(t))
        return self.xp.zeros(shape, dtype=self.dtype(t), device="cuda")

    def from_file(self, path, shape, t):
        a = self.np.fromfile(path, dtype=self.np.float32 if t == "float" else self.np.float64)
        a = a.reshape(shape)
        return self.xp.asarray(a) if self.name == "cupy" else self.xp.from_numpy(a).cuda()

    def max_relative_error(self, got, ref):
        xp = self.xp
        diff = xp.abs(got - ref)
        scale = xp.abs(ref)
        floor = 0.01 * float(scale.max())
        if self.name == "cupy":
            denom = xp.maximum(scale, floor if floor > 0 else 1e-30)
        else:
            denom = xp.clamp(scale, min=floor if floor > 0 else 1e-30)
        bad = float((diff / denom).max())
        nan = bool(xp.isnan(got).any()) and not bool(xp.isnan(ref).any())
        return float("inf") if nan else bad

    def sync(self):
        if self.name == "cupy":
            self.xp.cuda.Device().synchronize()
        else:
            self.xp.cuda.synchronize()

    def time(self, op, runs, warmup=3):
        """Median, min and max of `runs` runs of op, each between two CUDA events."""
        for _ in range(warmup):
            op()
        self.sync()
        ms = []
        for _ in range(runs):
            if self.name == "cupy":
                start, stop = self.xp.cuda.Event(), self.xp.cuda.Event()
                start.record()
                op()
                stop.record()
                stop.synchronize()
                ms.append(self.xp.cuda.get_elapsed_time(start, stop))
            else:
                start = self.xp.cuda.Event(enable_timing=True)
                stop = self.xp.cuda.Event(enable_timing=True)
                start.record()
                op()
                stop.record()
                stop.synchronize()
                ms.append(start.elapsed_time(stop))
        return statistics.median(ms) * 1e3, min(ms) * 1e3, max(ms) * 1e3

    # The operations.

    def gemm(self, A, B, C, beta):
        """C = A B + beta C (cuBLAS, FP32 or FP64, no TF32)."""
        if self.name == "cupy":
            import cupy.cublas
            cupy.cublas.gemm("N", "N", A, B, out=C, alpha=1.0, beta=beta)
        elif beta:
            C.addmm_(A, B)
        else:
            self.xp.mm(A, B, out=C)

    def gemv(self, A, x, y, trans):
        """y = op(A) x (cuBLAS gemv)."""
        if self.name == "cupy":
            import cupy.cublas
            try:
                cupy.cublas.gemv("T" if trans else "N", 1.0, A, x, 0.0, y)
            except TypeError:
                # A CuPy whose cupy.cublas has no gemv(transa, alpha, a, x, beta, y).
                self.xp.matmul(A.T if trans else A, x, out=y)
                self.gemv_call = "cupy.matmul"
        else:
            self.xp.mv(A.t() if trans else A, x, out=y)

    def copy(self, dst, src):
        if self.name == "cupy":
            rt = self.xp.cuda.runtime
            rt.memcpyAsync(dst.data.ptr, src.data.ptr, src.nbytes, rt.memcpyDeviceToDevice,
                           self.xp.cuda.get_current_stream().ptr)
        else:
            dst.copy_(src)


def worker():
    spec = json.loads(sys.stdin.read())
    try:
        be = Backend(spec.get("backend", "auto"))
    except RuntimeError as e:
        print(json.dumps({"status": "failed", "error": str(e)}))
        return
    if spec["kind"] == "probe":
        print(json.dumps({"status": "ok", "library": be.library}))
        return
    runs = spec["runs"]
    if spec["kind"] == "copy":
        n = spec["bytes"] // 4
        src, dst = be.zeros([n], "float"), be.zeros([n], "float")
        med, lo, hi = be.time(lambda: be.copy(dst, src), runs)
        print(json.dumps({"status": "measured", "library": be.library, "bytes": spec["bytes"],
                          "time_us": round(med, 3), "min_us": round(lo, 3), "max_us": round(hi, 3),
                          "gb_s": round(2 * spec["bytes"] / (med * 1e3), 1),
                          "how": "device-to-device copy of a 1 GiB buffer; GB/s counts the "
                                 "bytes read and written"}))
        return
    t, d, kind = spec["dtype"], spec["defines"], spec["kind"]
    out = {"status": "measured", "library": be.library}
    if kind == "gemm":
        A, B = be.filled([d["M"], d["K"]], 1, t), be.filled([d["K"], d["N"]], 2, t)
        ref = be.zeros([d["M"], d["N"]], t)
        be.gemm(A, B, ref, 0.0)
        C = be.zeros([d["M"], d["N"]], t)
        op = lambda: be.gemm(A, B, C, 1.0)  # noqa: E731 (C += A B, as the C code does)
        out["call"] = ("cupy.cublas.gemm('N', 'N', A, B, out=C, beta=1.0)" if be.name == "cupy"
                       else "C.addmm_(A, B)")
    elif kind in ("gemv", "gemv_t"):
        trans = kind == "gemv_t"
        A = be.filled([d["M"], d["N"]], 1, t)
        x = be.filled([d["M"] if trans else d["N"]], 2, t)
        ref = be.zeros([d["N"] if trans else d["M"]], t)
        be.gemv(A, x, ref, trans)
        y = be.zeros(list(ref.shape), t)
        op = lambda: be.gemv(A, x, y, trans)  # noqa: E731
        out["call"] = (f"cupy.cublas.gemv('{'T' if trans else 'N'}', 1, A, x, 0, y)"
                       if be.name == "cupy" else f"torch.mv({'A.t()' if trans else 'A'}, x, out=y)")
        if getattr(be, "gemv_call", None):
            out["call"] = f"{be.gemv_call}({'A.T' if trans else 'A'}, x, out=y)"
    elif kind == "transpose":
        A = be.filled([d["ROWS"], d["COLS"]], 1, t)
        ref = A.T.copy() if be.name == "cupy" else A.t().contiguous()
    else:
        A, B = be.filled([d["N"], d["N"]], 1, t), be.zeros([d["N"], d["N"]], t)
        for _ in range(d["T"]):
            B[1:-1, 1:-1] = 0.2 * ((((A[1:-1, 1:-1] + A[:-2, 1:-1]) + A[2:, 1:-1])
                                    + A[1:-1, :-2]) + A[1:-1, 2:])
            A[1:-1, 1:-1] = B[1:-1, 1:-1]
        refs = {"A": A, "B": B}
    checks = {}
    for c in spec["check"]:
        got = be.from_file(c["path"], c["shape"], t)
        want = refs[c["array"]] if kind == "jacobi" else ref
        err = be.max_relative_error(got, want)
        prev = checks.get(c["variant"])
        worst = max(err, prev["max_relative_error"]) if prev else err
        checks[c["variant"]] = {"max_relative_error": worst, "passed": worst <= spec["tolerance"]}
        del got
    out["checks"] = checks
    if spec["time"]:
        be.sync()
        med, lo, hi = be.time(op, runs)
        out.update({"time_us": round(med, 3), "min_us": round(lo, 3), "max_us": round(hi, 3)})
    else:
        out["status"] = "reference only"
    print(json.dumps(out))


# ---------------------------------------------------------------------------------------
# Results, table, plot


def header(args, mode, device, roof):
    return {
        "what": "gpucc (default compile and shipped recipe) against cuBLAS and the roofline "
                "(benchmarks/vendor.py)",
        "mode": mode,
        "smoke": bool(args.smoke),
        "device": device,
        "date": datetime.date.today().isoformat(),
        "commit": commit_label(),
        "roofline": roof,
        "definitions": {
            "time_us": "gpu: sum over the kernels of each launch's median (CUDA events); "
                       "emulator: gpucc emulate's predicted_time_us (predicted, not measured)",
            "gflops": "2 M N K (GEMM), 2 M N (GEMV), 5 per interior point and step (Jacobi) "
                      "over the time",
            "gb_s": "least DRAM traffic (each array read once, each written once; a GEMM's C "
                    "read and written; Jacobi as written, stencil and copy-back: 4 arrays a "
                    "step) over the time",
            "roofline_share": "max(flops / peak, bytes / bandwidth) over the time",
            "vs_vendor": "cuBLAS's time over gpucc's (1.0: as fast as cuBLAS)",
        },
        "entries": [],
    }


def entry_doc(p):
    return {"problem": p["problem"], "size": p["size"], "source": p["source"],
            "defines": p["defines"], "recipe": p["recipe"], "dtype": p["dtype"],
            "flops": p["flops"], "bytes": p["bytes"], "variants": {}}


def selected(args):
    entries = problems(args.smoke)
    if args.only:
        entries = [p for p in entries if args.only.lower() in f"{p['problem']} {p['size']}".lower()]
    return entries


def write_doc(args, doc, slug):
    if args.output:
        with open(args.output, "w") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")
        return args.output
    return write_result(("vendor-smoke-" if args.smoke else "vendor-") + slug, doc["date"],
                        doc["commit"], doc)


def fmt_us(us):
    if us is None:
        return "-"
    if us >= 1e6:
        return f"{us / 1e6:.2f} s"
    if us >= 1e3:
        return f"{us / 1e3:.2f} ms"
    return f"{us:.1f} us"


def fmt_rate(e, r):
    if r.get("gflops") is None:
        return "-"
    if e["problem"] in ("SGEMM", "DGEMM"):
        return f"{r['gflops']:,.0f} GFLOP/s"
    return f"{r['gb_s']:,.0f} GB/s"


def fmt_share(r):
    return f"{100 * r['roofline_share']:.1f}%" if r.get("roofline_share") is not None else "-"


def table(doc):
    emulated = doc["mode"] == "emulator"
    roof = doc["roofline"]
    lines = [f"{'Predicted (emulated, not measured)' if emulated else 'Measured'} on "
             f"{doc['device']}, {doc['date']}, commit {doc['commit']}. Roofline: FP32 "
             f"{roof['fp32_gflops']:,.0f} GFLOP/s, FP64 {roof['fp64_gflops']:,.0f} GFLOP/s "
             f"(CUDA cores), DRAM {roof['bandwidth_gb_s']:,.0f} GB/s ({roof['bandwidth_from']}).",
             ""]
    if emulated:
        last = doc.get("last_measured_file")
        lines.append("| problem | size | code | predicted time | predicted rate | predicted share "
                     "of roofline | bottleneck (emulated) | status | "
                     f"last measured on a GPU{' (' + last + ')' if last else ''} |")
        lines.append("|---|---|---|---|---|---|---|---|---|")
    else:
        lines.append("| problem | size | code | time | rate | vs cuBLAS | share of roofline | status |")
        lines.append("|---|---|---|---|---|---|---|---|")
    for e in doc["entries"]:
        rows = [(f"gpucc default" if v == "default" else f"gpucc {os.path.basename(e['recipe'])}",
                 v, e["variants"].get(v, {})) for v in VARIANTS]
        is_blas = e["problem"] in ("SGEMM", "DGEMM", "SGEMV", "SGEMV^T")
        if is_blas:
            rows.append(("cuBLAS", "vendor", e.get("vendor", {})))
        for label, key, r in rows:
            status = r.get("status", "-")
            if r.get("error") and status in ("failed", "skipped"):
                status = f"{status}: {r['error'][:80]}"
            if emulated:
                prev = e.get("last_measured")
                if prev and key == "recipe" and prev.get("recipe", e.get("recipe")) != e.get("recipe"):
                    # Another shipped recipe was measured then: not this one's figure.
                    last = f"- ({os.path.basename(prev.get('recipe') or '-')} then)"
                elif prev:
                    pr = prev["vendor"] if key == "vendor" else prev["variants"].get(key, {})
                    last = (f"{fmt_us(pr.get('time_us'))}, {fmt_share(pr)}"
                            + (f", {pr['vs_vendor']:.2f}x cuBLAS" if pr.get("vs_vendor") else "")
                            if pr.get("time_us") else pr.get("status") or "-")
                else:
                    last = "-"
                lines.append(f"| {e['problem']} | {e['size']} | {label} | {fmt_us(r.get('time_us'))} "
                             f"| {fmt_rate(e, r)} | {fmt_share(r)} | {r.get('bottleneck', '-')} "
                             f"| {status} | {last} |")
            else:
                vs = f"{r['vs_vendor']:.2f}x" if r.get("vs_vendor") else "-"
                lines.append(f"| {e['problem']} | {e['size']} | {label} | {fmt_us(r.get('time_us'))} "
                             f"| {fmt_rate(e, r)} | {vs} | {fmt_share(r)} | {status} |")
    if not emulated and doc.get("copy", {}).get("gb_s"):
        c = doc["copy"]
        lines += ["", f"Device-to-device copy of 1 GiB: {fmt_us(c['time_us'])}, {c['gb_s']:,.0f} GB/s "
                      "(read and written): the bandwidth of the roofline."]
    return "\n".join(lines)


def svg_escape(s):
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def plot(doc, path):
    """Horizontal bars: each problem's share of the roofline, per code (hand-written SVG)."""
    emulated = doc["mode"] == "emulator"
    series = [("default", "gpucc default", "#4878a8"), ("recipe", "gpucc recipe", "#e08a2c"),
              ("vendor", "cuBLAS", "#5a9a4a")]
    if emulated:
        series = series[:2]
    bar, gap, left, width = 9, 8, 230, 520
    groups = doc["entries"]
    opacity = ' fill-opacity="0.55"' if emulated else ""
    vmax = max([1.0] + [r.get("roofline_share") or 0 for e in groups
                        for r in list(e["variants"].values()) + [e.get("vendor", {})]])
    scale = width / vmax
    height = 70 + len(groups) * (len(series) * bar + gap) + 40
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{left + width + 60}" height="{height}" '
           'font-family="sans-serif" font-size="11">',
           f'<rect width="100%" height="100%" fill="white"/>',
           f'<text x="10" y="18" font-size="13" font-weight="bold">{svg_escape("Share of the roofline: " + ("PREDICTED (emulated, not measured)" if emulated else "measured"))}</text>',
           f'<text x="10" y="34">{svg_escape(doc["device"] + ", " + doc["date"] + ", commit " + doc["commit"])}</text>']
    for k, (_, label, colour) in enumerate(series):
        lx = 10 + k * 200
        out.append(f'<rect x="{lx}" y="42" width="10" height="10" fill="{colour}"'
                   f'{opacity}/>')
        out.append(f'<text x="{lx + 14}" y="51">{svg_escape(label + (" (predicted)" if emulated else ""))}</text>')
    top = 64
    bottom = top + len(groups) * (len(series) * bar + gap)
    for pct in range(0, int(vmax * 100) + 1, 25):
        gx = left + pct / 100 * scale
        out.append(f'<line x1="{gx:.1f}" y1="{top - 4}" x2="{gx:.1f}" y2="{bottom}" stroke="#bbb" '
                   f'stroke-width="{1.2 if pct == 100 else 0.5}"/>')
        out.append(f'<text x="{gx:.1f}" y="{bottom + 14}" text-anchor="middle">{pct}%</text>')
    y = top
    for e in groups:
        out.append(f'<text x="{left - 6}" y="{y + len(series) * bar / 2 + 4}" text-anchor="end">'
                   f'{svg_escape(e["problem"] + " " + e["size"])}</text>')
        for key, _, colour in series:
            r = e["vendor"] if key == "vendor" else e["variants"].get(key, {})
            share = r.get("roofline_share")
            if share:
                w = share * scale
                out.append(f'<rect x="{left}" y="{y}" width="{w:.1f}" height="{bar - 1}" fill="{colour}"'
                           f'{opacity}/>')
                out.append(f'<text x="{left + w + 3:.1f}" y="{y + bar - 1}" font-size="9">{100 * share:.0f}%</text>')
            else:
                out.append(f'<text x="{left + 3}" y="{y + bar - 1}" font-size="9" fill="#888">'
                           f'{svg_escape(r.get("status", "not measured"))}</text>')
            y += bar
        y += gap
    out.append(f'<text x="{left}" y="{y + 30}">time of the roofline (max of flops / peak and bytes / '
               'bandwidth) over the time</text>')
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "_worker":
        worker()
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", choices=["emulator", "gpu"],
                        help="default: gpu where nvidia-smi finds a GPU, else emulator")
    parser.add_argument("--gpucc", default=os.path.join(ROOT, "target", "release", "gpucc"))
    parser.add_argument("--device", help="device description (benchmarks/devices/): emulator "
                        "mode's target (default h100); gpu mode: default from the GPU's name")
    parser.add_argument("--only", help="only the problems whose name and size contain this")
    parser.add_argument("--runs", type=int, default=10, help="timed runs (median), gpu mode")
    parser.add_argument("--budget", type=float, help="gpu mode: seconds after which the "
                        "problems left are recorded as skipped")
    parser.add_argument("--verify-limit", type=float, default=1.1e9,
                        help="gpu mode: largest C reference (statement instances) checked and "
                        "timed by gpucc verify; larger ones by the timing driver")
    parser.add_argument("--vendor", choices=["auto", "cupy", "torch"], default="auto")
    parser.add_argument("-j", "--jobs", type=int,
                        help="parallel gpucc runs (emulator: 1; gpu: builds, up to 8)")
    parser.add_argument("--smoke", action="store_true", help="every size divided by 16, 2 "
                        "Jacobi steps: a quick check of the machinery (results named "
                        "vendor-smoke-...), not a benchmark")
    parser.add_argument("-o", "--output", help="results file (default: benchmarks/results/...)")
    parser.add_argument("--plot", metavar="OUT.svg", help="also write an SVG bar chart (to "
                        "DIR/<the results file's name>.svg when given a folder)")
    parser.add_argument("--from", dest="source", metavar="RESULTS.json",
                        help="print the table (and --plot) of recorded results; runs nothing")
    args = parser.parse_args()

    if args.source:
        with open(args.source) as f:
            doc = json.load(f)
        print(table(doc))
        if args.plot:
            plot(doc, args.plot)
        return
    if not os.path.exists(args.gpucc):
        sys.exit(f"{args.gpucc} not found: run `cargo build --release` first")
    mode = args.mode or ("gpu" if gpu_present() else "emulator")
    if mode == "emulator":
        args.device = args.device or "h100"
        args.jobs = args.jobs or 1
        doc, slug = run_emulator(args, args.gpucc)
    else:
        args.jobs = args.jobs or max(1, min(8, (os.cpu_count() or 2) // 2))
        doc, slug = run_gpu(args, args.gpucc)
    path = write_doc(args, doc, slug)
    print(table(doc))
    print(f"\nwrote {os.path.relpath(path, ROOT)} ({doc['seconds']} s)", file=sys.stderr)
    if args.plot:
        svg = args.plot
        if svg.endswith(os.sep) or os.path.isdir(svg):
            svg = os.path.join(svg, os.path.basename(path)[:-len(".json")] + ".svg")
        plot(doc, svg)
        print(f"wrote {svg}", file=sys.stderr)


if __name__ == "__main__":
    main()
