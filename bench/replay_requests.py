#!/usr/bin/env python3
"""Writes the request list for bench/replay.cpp (`scalelab_replay`), one JSON object a line: every
book case of tests/cases with and without steps, each case with every numeric parameter (nested
ones too) scaled at random (N variants a case, a fixed seed), removed, or set to a wrong value,
every entry of tests/bad_inputs.json, and sweeps over every numeric parameter of every case.
Two builds that answer this list with the same bytes agree on every result, error and warning.
    python3 bench/replay_requests.py [N] > requests.jsonl
    build/scalelab_replay < requests.jsonl > answers.txt   # for each build; then cmp the answers
"""
import glob
import json
import random
import sys

N = int(sys.argv[1]) if len(sys.argv) > 1 else 20
rng = random.Random(12)
WRONG = [None, "x", [], {}, -1, 0, 1e300, True, 0.5, 2**70]


def emit(**r):
    print(json.dumps(r))


def numeric_paths(obj, prefix=()):
    for k, v in obj.items():
        if isinstance(v, bool):
            continue
        if isinstance(v, (int, float)):
            yield prefix + (k,)
        elif isinstance(v, dict):
            yield from numeric_paths(v, prefix + (k,))


def set_path(obj, path, value):
    for k in path[:-1]:
        obj = obj[k]
    if value is KeyError:
        del obj[path[-1]]
    else:
        obj[path[-1]] = value


def get_path(obj, path):
    for k in path:
        obj = obj[k]
    return obj


def scaled(v):
    f = 10 ** rng.uniform(-1.5, 1.5)
    if isinstance(v, int):
        return max(0, round(v * f)) if rng.random() < 0.9 else rng.choice([1, 2, 3, 7, 64, 1000])
    return v * f


cases = []
for f in sorted(glob.glob("tests/cases/*.json")):
    cases += json.load(open(f))

for c in cases:
    calc, params = c["calculator"], c["params"]
    for steps in (True, False):
        emit(op="eval", calc=calc, input=json.dumps(params), steps=steps)
    paths = list(numeric_paths(params))
    for _ in range(N):
        p = json.loads(json.dumps(params))
        for path in paths:
            if rng.random() < 0.6:
                set_path(p, path, scaled(get_path(p, path)))
        for steps in (True, False):
            emit(op="eval", calc=calc, input=json.dumps(p), steps=steps)
    for path in paths:
        for value in [KeyError] + rng.sample(WRONG, 3):
            p = json.loads(json.dumps(params))
            set_path(p, path, value)
            emit(op="eval", calc=calc, input=json.dumps(p), steps=rng.random() < 0.5)
        v = get_path(params, path)
        spec = {"x": {"param": ".".join(path), "from": v / 4 if v else 0, "to": v * 4 if v else 100, "points": 33}}
        emit(op="sweep", calc=calc, params=json.dumps(params), spec=json.dumps(spec))
        if len(paths) > 1:
            other = rng.choice([q for q in paths if q != path])
            w = get_path(params, other)
            spec["y"] = {"param": ".".join(other), "values": [w, w * 2, w / 3 if w else 1]}
            emit(op="sweep_request", calc=calc, request=json.dumps({"params": params, "sweep": spec}))

for b in json.load(open("tests/bad_inputs.json")):
    g = b.get("generate")
    text = b["input"] if g is None else g["prefix"] + g["repeat"] * g["times"] + g["suffix"]
    for steps in (True, False):
        emit(op="eval", calc=b["calculator"], input=text, steps=steps)

emit(op="sweep", calc="decode", params=json.dumps({"model": "llama3-70b", "chip": "tpu-v5e", "chips": 16, "batch": 32}),
     spec=json.dumps({"x": {"param": "context", "from": 0, "to": 131072, "points": 2048, "scale": "linear"}}))
