"""The hooks front: `brainkeep hook HOST EVENT`, run by an agent harness per lifecycle event.

A hook is a fresh process per prompt, so this package keeps its import
graph to the standard library plus ``core.ambient``: no click, no numpy, no
database driver. The brain is read through a per-brain local ambient server
(``daemon.py``, started on first use, gone after an idle spell) or a remote
``serve --http``. Every failure exits 0 with no output and one heartbeat line.
"""
