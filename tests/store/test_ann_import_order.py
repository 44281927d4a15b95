"""The ANN base opened before the local model loads must not crash the process.

A serving process maps the usearch base at its first search and imports
onnxruntime lazily afterwards; with usearch's static libstdc++ that order
segfaulted (found on the 200K corpus, bench/scale_targets.py). Real
subprocesses: a crash is an exit status, not an exception.
"""

from __future__ import annotations

import subprocess
import sys

# usearch and onnxruntime are base dependencies (pyproject.toml): no skip when
# one is missing; the child's ImportError fails the test like a crash would.


def test_onnxruntime_imports_after_a_graph_was_opened(tmp_path) -> None:
    code = (
        "import numpy as np\n"
        "from pathlib import Path\n"
        "from brainkeep.store.sqlite.ann_files import new_graph, open_graph\n"
        "g = new_graph(8)\n"
        "g.add(np.arange(4), np.eye(4, 8, dtype=np.float32))\n"
        f"g.save({str(tmp_path / 'g.usearch')!r})\n"
        f"view = open_graph(Path({str(tmp_path / 'g.usearch')!r}), view=True)\n"
        "import onnxruntime\n"
        "print(int(view.search(np.eye(4, 8, dtype=np.float32)[2], 1).keys[0]))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    assert done.stdout.strip() == "2"
