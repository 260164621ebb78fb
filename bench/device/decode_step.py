#!/usr/bin/env python3
"""Time one decode step's matmuls of LLaMA-3 8B on a real GPU, batch by batch, and set each
step beside the engine's prediction for the same chip (`scalelab eval decode`).

The model's weights are random bf16 tensors of the catalog's shapes (no checkpoint is needed
to time a matmul): per layer Q, K, V, O, gate, up and down, then the unembedding. With
--context 0 (the default) attention over a KV cache is left out; with --context S every layer
also attends over a bf16 KV cache of S tokens per sequence (PyTorch's scaled_dot_product_attention,
grouped-query). The engine is asked for the same context. One step is captured once as a CUDA
graph and replayed; CUDA events time the replays.

Usage: python3 bench/device/decode_step.py [--chip h200] [--context S] [--batches 1,2,4] [--out DIR]
"""
import argparse, json, os, subprocess, sys

import torch

MODEL = "llama3-8b"
BATCHES = [1, 2, 4, 8, 16, 32, 64, 96, 128, 160, 192, 224, 256, 320, 384, 512, 768, 1024]


def engine(chip, batch, context):
    params = {"chip": chip, "model": MODEL, "chips": 1, "batch": batch, "context": context}
    out = subprocess.run(["build/scalelab", "eval", "decode", json.dumps(params)],
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)["outputs"]


def shapes(m):
    q, kv = m["N"] * m["H"], m["K"] * m["H"]
    layer = [(m["D"], q), (m["D"], kv), (m["D"], kv), (q, m["D"]),
             (m["D"], m["F"]), (m["D"], m["F"]), (m["F"], m["D"])]
    return layer, (m["D"], m["V"])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--chip", default="h200")
    ap.add_argument("--context", type=int, default=0)
    ap.add_argument("--batches", default=",".join(map(str, BATCHES)))
    ap.add_argument("--out", default=os.environ.get("OUT", "bench-device"))
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    models = json.loads(subprocess.run(["build/scalelab", "models"], capture_output=True,
                                       text=True, check=True).stdout)
    m = next(x for x in models if x["id"] == MODEL)
    layer, head = shapes(m)
    dev = torch.device("cuda")
    ws = [[torch.empty(s, device=dev, dtype=torch.bfloat16).normal_(std=0.02) for s in layer]
          for _ in range(m["L"])]
    w_head = torch.empty(head, device=dev, dtype=torch.bfloat16).normal_(std=0.02)
    matmul_params = sum(a * b for a, b in layer) * m["L"] + head[0] * head[1]

    rows = []
    S = args.context
    for b in [int(v) for v in args.batches.split(",")]:
        x = torch.randn(b, m["D"], device=dev, dtype=torch.bfloat16)
        caches = [(torch.empty(b, m["K"], S, m["H"], device=dev, dtype=torch.bfloat16).normal_(),
                   torch.empty(b, m["K"], S, m["H"], device=dev, dtype=torch.bfloat16).normal_())
                  for _ in range(m["L"])] if S else []

        def step():
            for i, (wq, wk, wv, wo, wg, wu, wd) in enumerate(ws):
                q = x @ wq; x @ wk; x @ wv
                if S:
                    k, v = caches[i]
                    a = torch.nn.functional.scaled_dot_product_attention(
                        q.view(b, m["N"], 1, m["H"]), k, v, enable_gqa=True)
                    q = a.reshape(b, m["N"] * m["H"])
                q @ wo
                (torch.nn.functional.silu(x @ wg) * (x @ wu)) @ wd
            return x @ w_head

        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            for _ in range(3):
                step()
        torch.cuda.current_stream().wait_stream(s)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            step()
        for _ in range(3):
            g.replay()
        torch.cuda.synchronize()
        reps = 30
        t0, t1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        t0.record()
        for _ in range(reps):
            g.replay()
        t1.record()
        torch.cuda.synchronize()
        measured = t0.elapsed_time(t1) / 1e3 / reps
        e = engine(args.chip, b, S)
        rows.append({
            "batch": b, "measured_step_s": measured, "engine_step_s": e["step_s"],
            "engine_bound": e["bound"], "engine_critical_batch": e["critical_batch"],
            "achieved_bytes_per_s": (2 * matmul_params + b * 2 * m["L"] * m["K"] * m["H"] * 2 * S) / measured,
            "achieved_flops_per_s": 2 * matmul_params * b / measured,
        })
        r = rows[-1]
        print(f"B={b:5d}  measured {measured*1e3:7.3f} ms  engine {e['step_s']*1e3:7.3f} ms "
              f"({e['bound']})  ratio {measured / e['step_s']:5.2f}  "
              f"{r['achieved_bytes_per_s']/1e12:5.2f} TB/s  {r['achieved_flops_per_s']/1e12:6.1f} TFLOP/s",
              flush=True)
        del g, caches
        torch.cuda.empty_cache()
    meta = {"gpu": torch.cuda.get_device_name(0), "torch": torch.__version__, "chip": args.chip,
            "model": MODEL, "context": S, "matmul_params": matmul_params, "rows": rows}
    json.dump(meta, open(os.path.join(args.out, f"decode_step_context{S}.json"), "w"), indent=1)


if __name__ == "__main__":
    sys.exit(main())
