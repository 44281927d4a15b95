"""The web console: server-rendered pages over the same services the verbs use.

A transport like ``cli/``, ``mcp/`` and ``grpc/``: it parses HTTP, finds the
viewer (``viewer.py``: the trusted local caller for ``brainkeep ui``, the
session's token caller under ``/console`` on ``serve --http``), calls the
dispatcher or a core service with that caller, and renders a template. The
read scope is the caller's ``core.scope.ReadScope``; the console adds no
visibility rule of its own.
"""
