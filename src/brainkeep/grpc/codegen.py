"""Regenerate the Mnemo gRPC stubs: ``python -m brainkeep.grpc.codegen``.

The contract is ``seeds/mnemo.proto``, whose first line (``mnemo-grpc 0.5.21``)
is a version header, not protobuf. ``--seed PATH`` strips that header and
refreshes the packaged copy ``grpc/proto/mnemo.proto``; without it the
packaged copy is compiled as is. Output goes to ``grpc/generated/``
(``mnemo_pb2.py``, ``mnemo_pb2_grpc.py``, ``mnemo_pb2.pyi``), and the absolute
``import mnemo_pb2`` that protoc writes into the ``_grpc`` module is rewritten
to a package-relative import so the stubs work from inside ``brainkeep``.
"""

from __future__ import annotations

import argparse
import re
import sys
from importlib import resources
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
PROTO_DIR = PACKAGE_DIR / "proto"
OUT_DIR = PACKAGE_DIR / "generated"
PROTO_NAME = "mnemo.proto"
_HEADER = re.compile(r"^mnemo-grpc\s+\S+\s*$")


def strip_header(text: str) -> str:
    """Drop the ``mnemo-grpc X.Y.Z`` header line (and the blank line after it)."""
    lines = text.splitlines(keepends=True)
    if lines and _HEADER.match(lines[0]):
        lines = lines[1:]
        if lines and not lines[0].strip():
            lines = lines[1:]
    return "".join(lines)


def _fix_grpc_import(path: Path) -> None:
    """protoc writes ``import mnemo_pb2``; inside a package it must be relative."""
    text = path.read_text(encoding="utf-8")
    fixed, count = re.subn(
        r"^import mnemo_pb2 as mnemo__pb2$",
        "from . import mnemo_pb2 as mnemo__pb2",
        text,
        flags=re.M,
    )
    if count != 1:
        raise SystemExit(f"codegen: expected one `import mnemo_pb2` in {path}, found {count}")
    path.write_text(fixed, encoding="utf-8")


def generate(seed: Path | None = None, out_dir: Path = OUT_DIR) -> list[Path]:
    """Compile the proto into ``out_dir`` (default ``generated/``); returns the files written."""
    from grpc_tools import protoc  # build-time dependency (the `test` extra)

    if seed is not None:
        (PROTO_DIR / PROTO_NAME).write_text(
            strip_header(seed.read_text(encoding="utf-8")), encoding="utf-8"
        )
    include = str(resources.files("grpc_tools") / "_proto")
    args = [
        "grpc_tools.protoc",
        f"-I{PROTO_DIR}",
        f"-I{include}",
        f"--python_out={out_dir}",
        f"--pyi_out={out_dir}",
        f"--grpc_python_out={out_dir}",
        PROTO_NAME,
    ]
    out_dir.mkdir(exist_ok=True)
    if protoc.main(args) != 0:
        raise SystemExit("codegen: protoc failed")
    _fix_grpc_import(out_dir / "mnemo_pb2_grpc.py")
    init = out_dir / "__init__.py"
    if not init.exists():
        init.write_text('"""Generated Mnemo gRPC stubs (python -m brainkeep.grpc.codegen)."""\n')
    return [out_dir / n for n in ("mnemo_pb2.py", "mnemo_pb2_grpc.py", "mnemo_pb2.pyi")]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--seed",
        type=Path,
        help="refresh grpc/proto/mnemo.proto from this seed file first (header stripped)",
    )
    options = parser.parse_args(argv)
    for path in generate(options.seed):
        print(f"wrote {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
