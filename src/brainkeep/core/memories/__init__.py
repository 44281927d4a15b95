"""The one memory domain: MCP facts and gRPC memories share these write, draft and access rules.

``writes`` is the only path that inserts or expires a memory row with its
audit event; ``drafts`` validates MCP/CLI facts; ``access`` answers grant
questions for ``core/scope.py``'s rules. ``core/facts.py`` (the verbs' facts)
and ``core/mnemo/`` (the gRPC RPCs) are built on them.
"""
