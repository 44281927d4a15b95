"""Per-user Unix sockets of the local helper processes (ambient server, embedding worker).

The sockets live in a directory only this user can enter, under the
runtime directory (``$XDG_RUNTIME_DIR``, else ``$TMPDIR``, else ``/tmp``):
what is sent over them is the user's memory, and in a shared ``/tmp``
another user who created the directory first could serve a fake helper.
Binding is the start-up lock: of two helpers started at once, one binds and
the other finds a live socket and exits.
"""

from __future__ import annotations

import os
import socket
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:  # a hook run imports this module for the path rules only
    import socketserver
    import subprocess

S = TypeVar("S", bound="socketserver.BaseServer")


def runtime_dir(env: Mapping[str, str], override: str = "") -> Path:
    """This user's socket directory (``override``: an environment variable naming another base)."""
    base = Path((env.get(override) if override else None) or env.get("XDG_RUNTIME_DIR")
                or env.get("TMPDIR") or "/tmp")
    return base / f"brainkeep-{os.getuid()}"


def private_dir(path: Path) -> bool:
    """Whether ``path`` is a directory only this user can enter (made so when missing).

    A directory not ours, or open to others, is refused (see the module docstring).
    """
    try:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = os.lstat(path)
    except OSError:
        return False
    return info.st_uid == os.getuid() and not info.st_mode & 0o077 and path.is_dir() \
        and not path.is_symlink()


def bind(path: Path, make: Callable[[str], S]) -> S | None:
    """``make(path)`` bound, or None when a live server answers there (or the directory is unsafe).

    A leftover socket file of a dead server is removed first; the socket is
    created readable and writable by this user only.
    """
    if not private_dir(path.parent):
        return None
    if path.exists():
        probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            probe.connect(str(path))
            return None  # someone is serving it
        except OSError:
            path.unlink(missing_ok=True)  # a dead server's leftover
        finally:
            probe.close()
    old = os.umask(0o177)
    try:
        return make(str(path))
    except OSError:
        return None  # lost the race to another starting server
    finally:
        os.umask(old)


def start_helper(module: str, args: list[str], log_path: Path,
                 env: Mapping[str, str]) -> subprocess.Popen[bytes]:
    """Start ``python -m module args`` detached: its own session, stderr to ``log_path``.

    It binds its socket itself (``bind``); the caller only waits for it to answer.
    """
    import subprocess  # a hook run pays for it only when it starts the ambient server

    with open(log_path, "ab") as log:
        return subprocess.Popen(  # noqa: S603 - our own interpreter and module
            [sys.executable, "-m", module, *args],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log,
            start_new_session=True, close_fds=True, env=dict(env))
