"""Connection URLs without secrets: the only forms a URL may take in a message or log.

A PostgreSQL URL may carry a password (``postgresql://user:secret@host/db``
or ``password=secret`` in a key/value string). Passwords come from the URL
at run time, ``PGPASSWORD`` or a ``.pgpass`` file, and never appear in logs,
``doctor``, config files or errors: every place that prints a target goes
through ``redact_url`` or ``describe_target``.
"""

from __future__ import annotations

import re

from psycopg.conninfo import conninfo_to_dict, make_conninfo

_REDACTED = "***"
# user:password@ in a URL; greedy up to the last "@" before the host, so an
# unescaped "@" inside a password is still covered.
_URL_PASSWORD = re.compile(r"^(?P<scheme>postgres(?:ql)?://)(?P<user>[^:@/?#]*):(?P<pw>[^/?#]*)@")
# password=... in a key/value conninfo or a URL query string.
_KV_PASSWORD = re.compile(r"(?P<key>\bpassword\s*=\s*)(?P<pw>'(?:[^'\\]|\\.)*'|[^\s&]*)",
                          re.IGNORECASE)


def is_postgres_url(target: str) -> bool:
    """True when ``target`` names a PostgreSQL database rather than a SQLite file."""
    return target.startswith(("postgresql://", "postgres://"))


def redact_url(url: str) -> str:
    """``url`` with any password replaced by ``***`` (user, host, port and db stay).

    Works on URLs and key/value conninfo strings, and on strings that are
    not valid conninfo at all (a typo must not leak the password either).
    """
    redacted = _URL_PASSWORD.sub(
        lambda m: f"{m['scheme']}{m['user']}:{_REDACTED}@" if m["pw"] else m[0], url
    )
    return _KV_PASSWORD.sub(lambda m: f"{m['key']}{_REDACTED}", redacted)


def strip_password(url: str) -> str:
    """``url`` without its password, as it may be written to a brain's config.

    Unlike ``redact_url`` the result still connects (libpq then takes the
    password from ``PGPASSWORD`` or ``.pgpass``).
    """
    if is_postgres_url(url):
        bare = _URL_PASSWORD.sub(lambda m: f"{m['scheme']}{m['user']}@", url)
        bare = re.sub(r"([?&])password=[^&]*&?", r"\1", bare)
        return bare.rstrip("?&")
    params = conninfo_to_dict(url)
    params.pop("password", None)
    return make_conninfo("", **{k: v for k, v in params.items() if v is not None})


def password_of(url: str) -> str | None:
    """The password ``url`` carries (None: none), to scrub it from driver messages."""
    try:
        value = conninfo_to_dict(url).get("password")
    except Exception:  # an unparsable URL has no password we could scrub by value
        return None
    return str(value) if value else None


def describe_target(url: str) -> str:
    """``host:port/dbname`` of ``url`` for messages (``socket /dir port 5432`` for sockets)."""
    try:
        params = conninfo_to_dict(url)
    except Exception:  # still say something useful, without the secret
        return redact_url(url)
    host = str(params.get("host") or "localhost")
    port = str(params.get("port") or "5432")
    dbname = str(params.get("dbname") or params.get("user") or "postgres")
    if host.startswith("/"):
        return f"socket {host} port {port}, database {dbname}"
    return f"{host}:{port}, database {dbname}"


def scrub(message: str, url: str) -> str:
    """``message`` with the literal password of ``url`` (if any) replaced by ``***``."""
    secret = password_of(url)
    cleaned = message.replace(secret, _REDACTED) if secret else message
    return redact_url(cleaned)
