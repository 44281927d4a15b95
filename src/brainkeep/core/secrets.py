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

import bisect
import re
from collections.abc import Callable, Iterator
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
    # Matched AT each occurrence of a needle (``pattern.match(haystack, at)``):
    # str.find over the text and a match per occurrence is far cheaper than
    # a regex search whose first character is not a literal.
    pattern: re.Pattern[str]
    needles: tuple[str, ...]
    # Needles and pattern are lower case, run on the lowercased text.
    folded: bool = False
    # Only this group is the secret (keeps "Authorization: Bearer ", "user:").
    group: str | int = 0
    # The needle must not follow a letter, digit or "_" (a vendor prefix
    # inside a base64 run or a longer word is not a key).
    boundary: bool = False
    # Last word on a candidate: (the secret's text, the whole match).
    accept: Callable[[str, re.Match[str]], bool] | None = None


# Values that name a secret without being one: placeholders, code, empties.
_NOT_A_VALUE = frozenset({
    "true", "false", "null", "none", "nil", "undefined", "required", "optional", "string",
    "str", "bytes", "int", "env", "secret", "password", "token", "redacted", "hidden",
    "changeme", "example", "xxxx", "xxxxx", "xxxxxxxx", "****", "*****", "********", "...",
    # code words that start a right-hand side (``token = await fetch()``)
    "await", "async", "new", "function", "lambda", "yield", "this", "self", "require",
    "import", "input", "prompt", "getpass", "not", "and", "or", "is", "in",
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


def _bearer_value(value: str, match: re.Match[str]) -> bool:
    # After an Authorization header anything token-shaped is the credential;
    # after a bare "bearer " it must not read as a word ("the bearer of").
    header = match.group(0).startswith("authorization")
    return header or _has_token_char(value) or value[1:] != value[1:].lower()


def _not_a_marker(value: str, _match: re.Match[str]) -> bool:
    return not value.startswith("[secret:")


_D = _Detector
_ALNUM_RUN = r"(?![A-Za-z0-9])"
_DETECTORS: tuple[_Detector, ...] = (
    _D(SecretRule("private-key", "PEM / OpenSSH / PGP private key blocks, BEGIN to END "
                  "(to the end of the base64 when END is missing)"),
       re.compile(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
                  r"(?:.*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
                  r"|(?:[ \t]*(?:\r?\n|\\n)[ \t]*[A-Za-z0-9+/=:, -]{8,})*)", re.S),
       ("-----BEGIN ",)),
    _D(SecretRule("anthropic-key", "Anthropic API and admin keys: sk-ant-..."),
       re.compile(r"sk-ant-[A-Za-z0-9_-]{20,}"), ("sk-ant-",), boundary=True),
    _D(SecretRule("openai-key", "OpenAI keys: sk-proj-..., sk-svcacct-..., sk-admin-..., "
                  "and classic sk- followed by 32+ letters and digits"),
       re.compile(r"sk-(?:(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{20,}|[A-Za-z0-9]{32,})"),
       ("sk-",), boundary=True),
    _D(SecretRule("github-token", "GitHub tokens: ghp_, gho_, ghu_, ghs_, ghr_ + 36 "
                  "characters, and fine-grained github_pat_..."),
       re.compile(r"g(?:h[pousr]_[A-Za-z0-9]{36,255}|ithub_pat_[A-Za-z0-9_]{22,255})"),
       ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"), boundary=True),
    _D(SecretRule("gitlab-token", "GitLab personal access tokens: glpat-..."),
       re.compile(r"glpat-[A-Za-z0-9_-]{20,}"), ("glpat-",), boundary=True),
    _D(SecretRule("slack-token", "Slack tokens: xoxb-, xoxp-, xoxa-, xoxr-, xoxs-, xoxe-, "
                  "xoxo-..."),
       re.compile(r"xox[abeoprs]-[A-Za-z0-9-]{10,}"),
       tuple(f"xox{c}-" for c in "abeoprs"), boundary=True),
    _D(SecretRule("slack-webhook", "Slack incoming-webhook URLs: "
                  "https://hooks.slack.com/services/..."),
       re.compile(r"https://hooks\.slack\.com/services/[A-Za-z0-9/_-]{20,}"),
       ("https://hooks.slack.com/services/",)),
    _D(SecretRule("aws-access-key", "AWS access key ids: AKIA, ASIA (and the other IAM "
                  "prefixes) + 16 upper-case letters and digits"),
       re.compile(r"(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|AROA|ANPA|ANVA|APKA)[A-Z0-9]{16}"
                  + _ALNUM_RUN),
       ("AKIA", "ASIA", "ABIA", "ACCA", "AGPA", "AIDA", "AIPA", "AROA", "ANPA", "ANVA",
        "APKA"), boundary=True),
    _D(SecretRule("aws-secret-key", "AWS secret access keys: 40 base64 characters after "
                  "aws_secret_access_key / SecretAccessKey / an aws ... secret label"),
       re.compile(r"(?:aws[_ -]?secret(?:[_ -]?access)?(?:[_ -]?key)?|secret_?access_?key)"
                  r"(?:[\"']?\s*(?::|=|=>)\s*[\"']?|\s+(?:is\s+)?)"
                  r"(?P<s>(?<![a-z0-9/+])[a-z0-9/+]{40}(?![a-z0-9/+]))"),
       ("aws", "secret"), folded=True, group="s"),
    _D(SecretRule("google-api-key", "Google API keys: AIza + 35 characters"),
       re.compile(r"AIza[0-9A-Za-z_-]{35}"), ("AIza",), boundary=True),
    _D(SecretRule("stripe-key", "Stripe secret and restricted keys: sk_live_, rk_live_, "
                  "sk_test_, rk_test_"),
       re.compile(r"[rs]k_(?:live|test)_[0-9A-Za-z]{20,}"),
       ("sk_live_", "rk_live_", "sk_test_", "rk_test_"), boundary=True),
    _D(SecretRule("huggingface-token", "Hugging Face tokens: hf_ + 34 letters"),
       re.compile(r"hf_[A-Za-z]{34,}" + _ALNUM_RUN), ("hf_",), boundary=True),
    _D(SecretRule("npm-token", "npm access tokens: npm_ + 36 characters"),
       re.compile(r"npm_[A-Za-z0-9]{36}" + _ALNUM_RUN), ("npm_",), boundary=True),
    _D(SecretRule("sendgrid-key", "SendGrid API keys: SG.<22>.<43>"),
       re.compile(r"SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}"), ("SG.",), boundary=True),
    _D(SecretRule("jwt", "JSON Web Tokens: three base64url parts, the first two "
                  "starting eyJ (a JSON object)"),
       re.compile(r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*"),
       ("eyJ",), boundary=True),
    _D(SecretRule("bearer-token", "the credential after Authorization: Bearer/Basic/Token, "
                  "and after a bare 'Bearer ' (16+ token characters that do not read as a word: a "
                  "digit, a symbol or an inner capital)"),
       re.compile(r"(?:authorization[\"']?\s*[:=]\s*[\"']?(?:bearer|basic|token|digest)\s+"
                  r"|bearer\s+)(?P<s>[a-z0-9._~+/-]{16,}=*)"),
       ("authorization", "bearer"), folded=True, group="s", boundary=True,
       accept=_bearer_value),
    _D(SecretRule("url-password", "the password in scheme://user:password@host"),
       re.compile(r"://[^\s:/@\"'<>]{1,128}:(?P<s>[^\s/@\"'<>]{1,256})@"),
       ("://",), group="s", accept=_not_a_marker),
    _D(SecretRule("cli-flag", "the value after --password / --token / --api-key / "
                  "--secret / --client-secret command-line flags"),
       re.compile(r"--(?:password|passwd|token|api-key|apikey|secret|client-secret"
                  r"|access-token|auth-token)(?:=|\s+)(?P<s>[^\s\"'`;|&]{4,})"),
       ("--",), folded=True, group="s", accept=_flag_value),
)
# The assignment rule is not a regex from a needle: the needle is the END of
# the key (``DB_PASSWORD=``), found by word, and the key is read backwards.
ASSIGNMENT = SecretRule(
    "assignment", ".env / YAML / JSON / code assignments whose key ends with password, "
    "passwd, passphrase, _pwd, secret, token, api_key, access_key, private_key, "
    "client_secret, credentials or auth (the value is replaced, the key kept; references "
    "such as $VAR, os.environ[...] and placeholders are left)")
RULES: tuple[SecretRule, ...] = (*(d.rule for d in _DETECTORS), ASSIGNMENT)

_KEY_ENDINGS = ("password", "passwd", "passphrase", "pwd", "secret", "token", "key",
                "credentials", "credential", "auth")
# "...key" counts only after one of these (api_key, SecretAccessKey, signing-key).
_KEY_KINDS = ("api", "access", "secret", "private", "auth", "signing", "encryption", "master",
              "license", "service_account")
# Quotes may come escaped (\"password\": \"...\"): JSON inside a JSON string,
# as tool inputs and outputs often are.
_ASSIGN_TAIL = re.compile(
    r"(?:\\?[\"'])?(?P<sep>[ \t]*(?:=>|:=|:|=)[ \t]*)"
    r"(?:\\?\"(?P<dq>(?:[^\"\\\n]|\\(?!\")){1,512})\\?\"|'(?P<sq>[^'\n]{1,512})'"
    r"|(?P<s>[^\s\"',;\\]{1,512}))")
_KEY_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_.-")


def _sensitive_key(key: str, ending: str) -> bool:
    if ending == "key":
        stem = key[:-3].rstrip("_-")
        return stem.endswith(_KEY_KINDS)
    if ending in ("pwd", "auth"):
        # PWD is the working directory and OAuth a protocol; DB_PWD and basic_auth are secrets.
        return len(key) > len(ending) and key[-len(ending) - 1] in "_-."
    return True


def _assignments(text: str, folded: str) -> list[tuple[int, int, str]]:
    found: list[tuple[int, int, str]] = []
    for ending in _KEY_ENDINGS:
        if ending not in folded:
            continue
        for at in _positions(folded, ending):
            match = _ASSIGN_TAIL.match(folded, at + len(ending))
            if match is None:
                continue
            start = at
            while start > 0 and folded[start - 1] in _KEY_CHARS:
                start -= 1
            if start > 0 and folded[start - 1] == "[":
                continue  # a marker's own "[secret:" is not a key
            key = folded[start:at + len(ending)].rsplit(".", 1)[-1]
            if not _sensitive_key(key, ending):
                continue
            group = next(g for g in ("dq", "sq", "s") if match.group(g) is not None)
            v_start, v_end = match.span(group)
            if _assignment_value(text[v_start:v_end], key, match, text):
                found.append((v_start, v_end, ASSIGNMENT.name))
    return found


def _assignment_value(value: str, key: str, match: re.Match[str], text: str) -> bool:
    """A literal; unquoted after a colon it must also look like a credential.

    "PASSWORD=hunter" and '"token": "abcd"' are secrets; "the secret: always
    test first" is prose, so an unquoted value after ':' needs a digit, a
    symbol, an inner capital or length (``_secret_shaped``).
    """
    if not _literal(value):
        return False
    if value.lower() == key or text[match.end():match.end() + 1] in ("(", "."):
        return False  # ``self.api_key = api_key``, ``token = fetch_token()``: code
    if match.group("s") is not None and match.group("sep").strip() == ":":
        return _secret_shaped(value)
    return True


def _positions(haystack: str, needle: str) -> Iterator[int]:
    at = haystack.find(needle)
    while at != -1:
        yield at
        at = haystack.find(needle, at + 1)


def _fold(text: str) -> str:
    """Lowercase with the same length (a few characters, like "İ", grow under lower())."""
    folded = text.lower()
    if len(folded) == len(text):
        return folded
    return "".join(c if len(c.lower()) != 1 else c.lower() for c in text)


_MARKER = re.compile(r"\[secret:[a-z0-9-]+\]")


def _spans(text: str) -> list[tuple[int, int, str]]:
    folded = _fold(text)
    # Markers of an earlier pass are spans no rule may touch (idempotency).
    found: list[tuple[int, int, str]] = (
        [(m.start(), m.end(), "") for m in _MARKER.finditer(text)] if "[secret:" in text else [])
    for det in _DETECTORS:
        haystack = folded if det.folded else text
        for needle in det.needles:
            if needle not in haystack:  # the common case, and far cheaper than a find loop
                continue
            for at in _positions(haystack, needle):
                if det.boundary and at and (haystack[at - 1].isalnum() or haystack[at - 1] == "_"):
                    continue
                match = det.pattern.match(haystack, at)
                if match is None:
                    continue
                start, end = match.span(det.group)
                if start < 0 or end <= start:
                    continue
                if det.accept is not None and not det.accept(text[start:end], match):
                    continue
                found.append((start, end, det.rule.name))
    found += _assignments(text, folded)
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
    # Accepted spans never overlap, so a candidate need only be checked
    # against its two neighbours in start order (a pasted .env dump can hold
    # thousands of hits: no quadratic pass).
    kept: list[tuple[int, int, str]] = []
    for start, end, rule in candidates:  # markers first, then in rule-priority order
        at = bisect.bisect_left(kept, (start, -1, ""))
        if at > 0 and kept[at - 1][1] > start:
            continue
        if at < len(kept) and kept[at][0] < end:
            continue
        kept.insert(at, (start, end, rule))
    accepted = [hit for hit in kept if hit[2]]
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
