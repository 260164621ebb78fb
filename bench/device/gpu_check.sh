#!/usr/bin/env bash
# One short run on a machine with an NVIDIA GPU: what the machine is, this project's
# `scalelab probe` on its CPU, and (when PyTorch is there) a bf16 matmul and an HBM
# copy timed with CUDA events, to set beside the catalog's figures for that chip.
# Usage: bash bench/device/gpu_check.sh [OUT_DIR]
set -u
out=${1:-${OUT:-bench-device}}
mkdir -p "$out"
{
  echo "## machine"; date -u; uname -a; nproc; head -1 /etc/os-release
  nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,clocks.max.mem,power.limit,driver_version --format=csv 2>&1
  for t in chromium chromium-browser google-chrome nvcc python3 vulkaninfo; do printf '%s: ' "$t"; command -v "$t" || echo absent; done
  python3 -c 'import torch; print("torch", torch.__version__, torch.cuda.is_available())' 2>&1 | tail -1
} > "$out/machine.txt" 2>&1
cat "$out/machine.txt"
if [ -x build/scalelab ]; then
  echo "## scalelab probe"; timeout 120 build/scalelab probe --json > "$out/probe.json" 2> "$out/probe.err"; echo "rc=$?"
  cat "$out/probe.json" "$out/probe.err"
fi
python3 - "$out" <<'PY' 2>&1 | tee "$out/torch.txt"
import json, sys
try:
    import torch
except Exception as e:
    print("no torch:", e); sys.exit(0)
if not torch.cuda.is_available():
    print("torch without CUDA"); sys.exit(0)
dev = torch.device("cuda")
def timed(fn, reps):
    for _ in range(3): fn()
    torch.cuda.synchronize()
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    a.record()
    for _ in range(reps): fn()
    b.record(); torch.cuda.synchronize()
    return a.elapsed_time(b) / 1e3 / reps
res = {"gpu": torch.cuda.get_device_name(0)}
for n in (4096, 8192, 16384):
    x = torch.randn(n, n, device=dev, dtype=torch.bfloat16); y = torch.randn(n, n, device=dev, dtype=torch.bfloat16)
    t = timed(lambda: x @ y, 20)
    res[f"bf16_matmul_{n}_flops_per_s"] = 2 * n**3 / t
    del x, y
src = torch.empty(4 * 2**30 // 2, device=dev, dtype=torch.bfloat16); dst = torch.empty_like(src)
t = timed(lambda: dst.copy_(src), 20)
res["hbm_copy_bytes_per_s"] = 2 * src.numel() * 2 / t  # read + write
print(json.dumps(res, indent=1))
json.dump(res, open(sys.argv[1] + "/torch.json", "w"), indent=1)
PY
