"""Which bind addresses stay on this machine (one rule for HTTP and gRPC)."""

from __future__ import annotations

import ipaddress

_LOOPBACK_NAMES = {"localhost", "localhost.localdomain", "ip6-localhost"}


def is_loopback(bind: str) -> bool:
    """Whether ``bind`` only accepts connections from this machine.

    Hostnames other than localhost count as non-loopback (fail closed).
    """
    host = bind.strip().strip("[]")
    if host.lower() in _LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
