"""The Caller an HTTP bearer token stands for, one rule for every HTTP front (MCP, console).

HTTP callers are remote; the token's name namespaces cursors and usage. A
token bound to an org and an agent makes the caller that tenant's reader and
that agent's writer (``Caller.read_scope``).
"""

from __future__ import annotations

import functools

from brainkeep.core.context import Caller
from brainkeep.core.token_models import ApiToken


@functools.lru_cache(maxsize=1024)
def caller_for_token(token: ApiToken) -> Caller:
    """HTTP callers are remote; the token's name namespaces cursors and usage.

    ``client_id`` is prefixed so no token name can collide with the reserved
    ``local`` lane or the shared ``remote`` (stdio) lane of delta cursors.
    A token bound to an org and an agent makes the caller that tenant's
    reader and that agent's writer (``Caller.read_scope``).
    """
    return Caller(
        remote=True,
        client_id=f"token:{token.name}",
        transport="http",
        scopes=frozenset(token.scopes),
        token_name=token.name,
        org_id=token.org_id,
        agent_id=token.agent_id,
    )
