"""Ambient memory: what an agent harness's lifecycle hooks inject, and when.

Transport-free. The hooks front (``brainkeep.hooks``) hands these functions
an ``Ask`` (tool name, arguments) -> verb envelope, answered by a local
ambient server or a remote ``serve --http``; the functions decide what to
inject under a token budget, never the same item twice in one session, and
render it as a delimited block that says it is data from memory.
"""
