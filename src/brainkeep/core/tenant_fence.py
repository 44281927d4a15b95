"""Which tenants an operator may act for: the one rule behind every org fence on consent.

An operator (an admin bearer token, or the operator password) is either
unbound (``org`` None: the whole brain is theirs) or bound to one org. A bound
operator covers only things of that same org: not another org's, and not
the unbound ones, which act brain-wide and are therefore the unbound
operator's to hand out.
"""

from __future__ import annotations


def operator_covers(operator_org: str | None, subject_org: str | None) -> bool:
    """Whether an operator bound to ``operator_org`` may act for something of ``subject_org``.

    Args:
        operator_org: the operator's org binding (None: unbound, e.g. an admin
            token created without ``--org``, or the operator password).
        subject_org: the org the thing (an OAuth client, a token) acts as; None
            means brain-wide.

    Returns:
        True for an unbound operator, else only when both orgs are the same one.
    """
    return operator_org is None or operator_org == subject_org
