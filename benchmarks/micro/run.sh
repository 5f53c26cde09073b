#!/usr/bin/env bash
# Builds and runs gpucc's microbenchmarks (micro.cu) on this machine's GPU and writes
# their JSON, with the date, the commit and nvcc's version added, to $1 (default: stdout).
# Needs a GPU and nvcc (PATH, GPUCC_NVCC, or .nvidia from scripts/install-cuda-toolchain).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
nvcc="${GPUCC_NVCC:-}"
[ -n "$nvcc" ] || { [ -x "$root/.nvidia/nvidia/cu13/bin/nvcc" ] && nvcc="$root/.nvidia/nvidia/cu13/bin/nvcc"; } || nvcc="$(command -v nvcc)"
arch="${GPUCC_ARCH:-sm_90}"
exe="$(mktemp -d)/micro"
"$nvcc" -O3 -std=c++17 -arch="$arch" -o "$exe" "$here/micro.cu"
json="$("$exe")"
commit="${GPUCC_COMMIT:-$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)}"
version="$("$nvcc" --version | tail -n 1)"
python3 - "$json" "$commit" "$version" "$arch" > "${1:-/dev/stdout}" <<'PY'
import datetime, json, sys
doc = json.loads(sys.argv[1])
doc = {"date": datetime.date.today().isoformat(), "commit": sys.argv[2], "nvcc": sys.argv[3],
       "arch": sys.argv[4], **doc}
print(json.dumps(doc, indent=1))
PY
