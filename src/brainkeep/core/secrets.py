"""Secret scrubbing: credentials out of text before it is stored, embedded or logged.

Zero dependencies, pure functions. ``scrub(text)`` replaces every secret a
rule in ``RULES`` finds by a marker ``[secret:<rule>]`` and reports where
(never what). The rules are published in docs/agents.md "Secret scrubbing".

The rules favour known shapes (a vendor prefix, a fixed length and alphabet)
and known contexts (an ``Authorization`` header, a ``PASSWORD=`` assignment, a
password in a URL) over entropy guesses: a transcript is full of git SHAs,
sha256 sums, UUIDs and base64 images that an entropy rule would destroy, and
those are evidence. Vendor patterns start at a word boundary, so a prefix
such as ``AKIA`` or ``eyJ`` in the middle of a base64 run is left alone.

Scrubbing is idempotent: a marker never matches a rule again, so
``scrub(scrub(t).text).text == scrub(t).text``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class SecretRule:
    """One published detector rule: its marker name and what it finds."""

    name: str
    description: str


@dataclass(frozen=True)
class SecretHit:
    """Where a secret was, in the ORIGINAL text (the secret itself is never kept)."""

    rule: str
    start: int
    end: int


@dataclass(frozen=True)
class Scrubbed:
    """The text with markers in place of secrets, and the hits."""

    text: str
    hits: tuple[SecretHit, ...]

    @property
    def count(self) -> int:
        return len(self.hits)


def marker(rule: str) -> str:
    """The text that replaces a secret found by ``rule``."""
    return f"[secret:{rule}]"


def safe_cut(text: str, limit: int) -> str:
    """``text[:limit]``, moved back so it never ends inside a marker."""
    kept = text[:limit]
    opened = kept.rfind("[secret:")
    if opened != -1 and "]" not in kept[opened:]:
        kept = kept[:opened]
    return kept


@dataclass(frozen=True)
class _Detector:
    rule: SecretRule
    pattern: re.Pattern[str]
    # Cheap substring tests (on the lowercased text when ``folded``): the
    # regex runs only when one is present, so clean text costs a few scans.
    needles: tuple[str, ...]
    folded: bool = False
    # Only this group is the secret (keeps "Authorization: Bearer ", "API_KEY=").
    group: str | int = 0
    # Last word on a candidate: (the secret's text, the whole match).
    accept: Callable[[str, re.Match[str]], bool] | None = None


# A sensitive assignment key ends with one of these words (so max_tokens,
# token_count or secretary do not count).
_KEY_WORDS = (
    r"password|passwd|passphrase|[_-]pwd|secret|token|api[_-]?key|apikey|access[_-]?key"
    r"|secret[_-]?key|private[_-]?key|auth[_-]?key|signing[_-]?key|encryption[_-]?key"
    r"|master[_-]?key|client[_-]?secret|credentials?|auth"
)
# Values that name a secret without being one: placeholders, code, empties.
_NOT_A_VALUE = frozenset({
    "true", "false", "null", "none", "nil", "undefined", "required", "optional", "string",
    "str", "bytes", "int", "env", "secret", "password", "token", "redacted", "hidden",
    "changeme", "example", "xxxx", "xxxxx", "xxxxxxxx", "****", "*****", "********", "...",
})


def _literal(value: str) -> bool:
    """Whether an assignment's right-hand side is a literal worth hiding."""
    v = value.strip().strip("\"'")
    if len(v) < 4 or v.lower() in _NOT_A_VALUE or set(v) <= {"*", "x", "X", "."}:
        return False
    if v[0] in "$%<{[(`@&" or v.startswith(("process.env", "os.environ", "os.getenv", "env.")):
        return False  # a reference to the secret (a variable, a template), not the secret
    if "(" in v or "[" in v or "{" in v:
        return False  # code: a call or a subscript
    # A dotted lower-case name (self.token, config.api_key) is code, not a value.
    return not re.fullmatch(r"[a-z_][a-z0-9_]*(?:\.[a-z_][a-z0-9_]*)+", v)


def _has_token_char(value: str, _match: re.Match[str] | None = None) -> bool:
    # "Bearer internationalization" is prose; a credential has a digit or symbol.
    return any(c.isdigit() or c in "._~+/-=" for c in value)


def _secret_shaped(value: str) -> bool:
    """A digit, a symbol, an inner capital or 12+ characters: not an ordinary word."""
    inner_capital = value[1:] != value[1:].lower()
    return not value.isalpha() or len(value) >= 12 or inner_capital


def _flag_value(value: str, _match: re.Match[str]) -> bool:
    return _literal(value)


def _assignment(value: str, match: re.Match[str]) -> bool:
    """A literal; unquoted after a colon it must also look like a credential.

    "PASSWORD=hunter" and '"token": "abcd"' are secrets; "the secret: always
    test first" is prose, so an unquoted value after ':' needs a digit, a
    symbol, mixed case or length (``_secret_shaped``).
    """
    if not _literal(value):
        return False
    if match.group("s") is not None and match.group("sep").strip() == ":":
        return _secret_shaped(value)
    return True


_D = _Detector
_DETECTORS: tuple[_Detector, ...] = (
    _D(SecretRule("private-key", "PEM / OpenSSH / PGP private key blocks, BEGIN to END "
                  "(to the end of the base64 when END is missing)"),
       re.compile(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
                  r"(?:.*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
                  r"|(?:[ \t]*(?:\r?\n|\\n)[ \t]*[A-Za-z0-9+/=:, -]{8,})*)", re.S),
       ("-----BEGIN",)),
    _D(SecretRule("anthropic-key", "Anthropic API and admin keys: sk-ant-..."),
       re.compile(r"\bsk-ant-[A-Za-z0-9_-]{20,}"), ("sk-ant-",)),
    _D(SecretRule("openai-key", "OpenAI keys: sk-proj-..., sk-svcacct-..., sk-admin-..., "
                  "and classic sk- followed by 32+ letters and digits"),
       re.compile(r"\bsk-(?:(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{20,}|[A-Za-z0-9]{32,})"),
       ("sk-",)),
    _D(SecretRule("github-token", "GitHub tokens: ghp_, gho_, ghu_, ghs_, ghr_ + 36 "
                  "characters, and fine-grained github_pat_..."),
       re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})"),
       ("gh", "github_pat_")),
    _D(SecretRule("gitlab-token", "GitLab personal access tokens: glpat-..."),
       re.compile(r"\bglpat-[A-Za-z0-9_-]{20,}"), ("glpat-",)),
    _D(SecretRule("slack-token", "Slack tokens (xoxb-, xoxp-, xoxa-, xoxr-, xoxs-, xoxe-) "
                  "and incoming-webhook URLs"),
       re.compile(r"\bxox[abeoprs]-[A-Za-z0-9-]{10,}"
                  r"|https://hooks\.slack\.com/services/[A-Za-z0-9/_-]{20,}"),
       ("xox", "hooks.slack.com")),
    _D(SecretRule("aws-access-key", "AWS access key ids: AKIA, ASIA (and the other IAM "
                  "prefixes) + 16 upper-case letters and digits"),
       re.compile(r"\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|AROA|ANPA|ANVA|APKA)[A-Z0-9]{16}\b"),
       ("AKIA", "ASIA", "ABIA", "ACCA", "AGPA", "AIDA", "AIPA", "AROA", "ANPA", "ANVA",
        "APKA")),
    _D(SecretRule("aws-secret-key", "AWS secret access keys: 40 base64 characters after "
                  "aws_secret_access_key / SecretAccessKey / an aws ... secret label"),
       re.compile(r"(?i)(?:aws[_ -]?secret(?:[_ -]?access)?(?:[_ -]?key)?|secret_?access_?key)"
                  r"(?:[\"']?\s*(?::|=|=>)\s*[\"']?|\s+(?:is\s+)?)"
                  r"(?P<s>(?<![A-Za-z0-9/+])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+]))"),
       ("secret",), folded=True, group="s"),
    _D(SecretRule("google-api-key", "Google API keys: AIza + 35 characters"),
       re.compile(r"\bAIza[0-9A-Za-z_-]{35}"), ("AIza",)),
    _D(SecretRule("stripe-key", "Stripe secret and restricted keys: sk_live_, rk_live_, "
                  "sk_test_, rk_test_"),
       re.compile(r"\b[rs]k_(?:live|test)_[0-9A-Za-z]{20,}"), ("k_live_", "k_test_")),
    _D(SecretRule("huggingface-token", "Hugging Face tokens: hf_ + 34 letters"),
       re.compile(r"\bhf_[A-Za-z]{34,}\b"), ("hf_",)),
    _D(SecretRule("npm-token", "npm access tokens: npm_ + 36 characters"),
       re.compile(r"\bnpm_[A-Za-z0-9]{36}\b"), ("npm_",)),
    _D(SecretRule("sendgrid-key", "SendGrid API keys: SG.<22>.<43>"),
       re.compile(r"\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}"), ("SG.",)),
    _D(SecretRule("jwt", "JSON Web Tokens: three base64url parts, the first two "
                  "starting eyJ (a JSON object)"),
       re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*"),
       ("eyJ",)),
    _D(SecretRule("bearer-token", "the credential after Authorization: Bearer/Basic/Token, "
                  "and after a bare 'Bearer ' (16+ token characters with a digit or symbol)"),
       re.compile(r"(?i)(?:authorization[\"']?\s*[:=]\s*[\"']?(?:bearer|basic|token|digest)\s+"
                  r"|\bbearer\s+)(?P<s>[A-Za-z0-9._~+/-]{16,}=*)"),
       ("bearer", "authorization"), folded=True, group="s",
       accept=_has_token_char),
    _D(SecretRule("url-password", "the password in scheme://user:password@host"),
       re.compile(r"\b[A-Za-z][A-Za-z0-9+.-]{1,20}://[^\s:/@\"'<>]{1,128}:"
                  r"(?P<s>[^\s/@\"'<>]{1,256})@"),
       ("://",), group="s", accept=lambda v, _m: not v.startswith("[secret:")),
    _D(SecretRule("cli-flag", "the value after --password / --token / --api-key / "
                  "--secret / --client-secret command-line flags"),
       re.compile(r"(?i)--(?:password|passwd|token|api-key|apikey|secret|client-secret"
                  r"|access-token|auth-token)(?:=|\s+)(?P<s>[^\s\"'`;|&]{4,})"),
       ("--",), group="s", accept=_flag_value),
    _D(SecretRule("assignment", ".env / YAML / JSON / code assignments whose key ends with "
                  "password, passwd, passphrase, pwd, secret, token, api_key, access_key, "
                  "private_key, client_secret, credentials or auth (the value is replaced, "
                  "the key kept; references such as $VAR, os.environ[...] and placeholders "
                  "are left)"),
       re.compile(r"(?i)(?<![A-Za-z0-9\[])[A-Za-z0-9_.-]*?(?:" + _KEY_WORDS + r")[\"']?"
                  r"(?P<sep>[ \t]*(?::|=|:=|=>)[ \t]*)"
                  r"(?:\"(?P<dq>[^\"\n]{1,512})\"|'(?P<sq>[^'\n]{1,512})'"
                  r"|(?P<s>[^\s\"',;]{1,512}))"),
       ("pass", "pwd", "secret", "token", "key", "credential", "auth"), folded=True,
       group="s", accept=_assignment),
)

RULES: tuple[SecretRule, ...] = tuple(d.rule for d in _DETECTORS)


_MARKER = re.compile(r"\[secret:[a-z0-9-]+\]")


def _spans(text: str) -> list[tuple[int, int, str]]:
    folded = text.lower()
    # Markers of an earlier pass are spans no rule may touch (idempotency).
    found: list[tuple[int, int, str]] = (
        [(m.start(), m.end(), "") for m in _MARKER.finditer(text)] if "[secret:" in text else [])
    for det in _DETECTORS:
        haystack = folded if det.folded else text
        if not any(n in haystack for n in det.needles):
            continue
        for match in det.pattern.finditer(text):
            group: str | int = det.group
            if det.rule.name == "assignment":
                group = next(g for g in ("dq", "sq", "s") if match.group(g) is not None)
            start, end = match.span(group)
            if start < 0 or end <= start:
                continue
            if det.accept is not None and not det.accept(text[start:end], match):
                continue
            found.append((start, end, det.rule.name))
    return found


def scrub(text: str) -> Scrubbed:
    """Replace every secret in ``text`` by ``[secret:<rule>]``.

    Rules run in ``RULES`` order; where two hits overlap the earlier rule
    wins (a vendor key inside ``API_KEY=...`` is reported as the vendor key).

    Returns:
        The scrubbed text and the hits (rule and span in the original text).
    """
    if not text:
        return Scrubbed(text, ())
    candidates = _spans(text)
    if not candidates:
        return Scrubbed(text, ())
    accepted: list[tuple[int, int, str]] = []
    for start, end, rule in candidates:  # markers first, then in rule-priority order
        if all(end <= a or start >= b for a, b, _ in accepted):
            accepted.append((start, end, rule))
    accepted = sorted(hit for hit in accepted if hit[2])
    if not accepted:
        return Scrubbed(text, ())
    out: list[str] = []
    pos = 0
    for start, end, rule in accepted:
        out.append(text[pos:start])
        out.append(marker(rule))
        pos = end
    out.append(text[pos:])
    return Scrubbed("".join(out), tuple(SecretHit(r, s, e) for s, e, r in accepted))


def scrub_text(text: str) -> str:
    """``scrub(text).text``: the form a log line or a stored field needs."""
    return scrub(text).text
