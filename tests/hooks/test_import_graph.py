"""The per-prompt hook is a fresh process: it must not import the heavy parts of brainkeep."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.hooks.hook_support import Hooks, payload

# brainkeep.core too: the ambient server runs the prompt's reads and its
# selection (core/ambient), so a local hook loads none of the domain.
# brainkeep.config and dataclasses: a hook reads the home through
# brainkeep.brain_home, and dataclasses imports inspect (~7 ms a run).
HEAVY = ("numpy", "click", "rich", "sqlite3", "psycopg", "httpx", "httpx2", "mcp", "grpc",
         "starlette", "brainkeep.brain", "brainkeep.store", "brainkeep.cli", "brainkeep.ops",
         "brainkeep.core", "brainkeep.config", "dataclasses")
PROBE = """
import sys
sys.argv = ["brainkeep", "hook", "claude-code", "user-prompt", "--home", sys.argv[1]]
from brainkeep.entry import main
try:
    main()
except SystemExit:
    pass
sys.stdout.flush()
sys.stderr.write(" ".join(sorted(sys.modules)))
"""


def test_a_prompt_hook_imports_no_engine_driver_model_or_cli(hooks: Hooks) -> None:
    done = subprocess.run([sys.executable, "-c", PROBE, str(hooks.home)], env=hooks.env,
                          input=payload("claude-code", "user-prompt",
                                        prompt="Who approves Billing service refunds?"),
                          capture_output=True, timeout=60, check=True)
    assert "second approver" in json.loads(done.stdout)["hookSpecificOutput"][
        "additionalContext"]  # it did its work
    loaded = set(done.stderr.decode().split())
    assert not {m for m in loaded if m in HEAVY or m.split(".")[0] in HEAVY
                or any(m.startswith(h + ".") for h in HEAVY)}
