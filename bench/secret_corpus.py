"""A corpus of real-FORMAT secrets and of look-alikes, generated (never real credentials).

Every planted secret has its vendor's prefix, length and alphabet, placed in
the context a transcript shows it in (an ``export`` line, a JSON config, a
curl command, prose). Look-alikes are what a transcript is full of and what
must survive scrubbing untouched: git SHAs, sha256 sums, UUIDs, base64 image
data URIs, long words, paths, prose and code that *name* secrets.

Used by tests/core/test_secrets.py (every sample) and bench/secret_scrub.py
(rates and cost per KB).
"""

from __future__ import annotations

import base64
import hashlib
import json
import random
import string
import uuid
from collections.abc import Callable
from dataclasses import dataclass

ALNUM = string.ascii_letters + string.digits
UPPER_DIGITS = string.ascii_uppercase + string.digits
URLSAFE = ALNUM + "-_"
B64 = ALNUM + "+/"


@dataclass(frozen=True)
class Planted:
    """A secret inside its context: ``text`` contains ``secret``; ``rule`` should find it."""

    rule: str
    secret: str
    text: str


def _pick(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _aws_access(rng: random.Random) -> str:
    return rng.choice(["AKIA", "ASIA"]) + _pick(rng, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16)


def _jwt(rng: random.Random) -> str:
    header = {"alg": rng.choice(["HS256", "RS256", "ES256"]), "typ": "JWT"}
    payload = {"sub": str(rng.randrange(10**6)), "name": "Test User",
               "iat": 1700000000 + rng.randrange(10**7), "scope": "read write"}
    parts = [_b64url(json.dumps(header).encode()), _b64url(json.dumps(payload).encode()),
             _b64url(rng.randbytes(32 if header["alg"] == "HS256" else 64))]
    return ".".join(parts)


def _pem(rng: random.Random) -> str:
    kind = rng.choice(["RSA PRIVATE KEY", "PRIVATE KEY", "EC PRIVATE KEY",
                       "OPENSSH PRIVATE KEY", "ENCRYPTED PRIVATE KEY"])
    body = base64.b64encode(rng.randbytes(rng.choice([121, 400, 1190]))).decode()
    lines = [body[i:i + 64] for i in range(0, len(body), 64)]
    return f"-----BEGIN {kind}-----\n" + "\n".join(lines) + f"\n-----END {kind}-----"


def _password(rng: random.Random) -> str:
    return _pick(rng, ALNUM, rng.randint(6, 12)) + rng.choice("!#%^*-_.~") + _pick(rng, ALNUM, 3)


# rule -> (secret generator, contexts with {s})
SECRETS: dict[str, tuple[Callable[[random.Random], str], tuple[str, ...]]] = {
    "aws-access-key": (_aws_access, (
        "export AWS_ACCESS_KEY_ID={s}", "aws_access_key_id = {s}",
        '{{"AccessKeyId": "{s}", "Expiration": "2026-01-01T00:00:00Z"}}',
        "the key {s} was rotated yesterday")),
    "aws-secret-key": (lambda r: _pick(r, B64, 40), (
        "export AWS_SECRET_ACCESS_KEY={s}", "aws_secret_access_key = {s}",
        '"SecretAccessKey": "{s}",', "AWS secret key is {s}")),
    "github-token": (lambda r: r.choice(["ghp_", "gho_", "ghu_", "ghs_", "ghr_"])
                     + _pick(r, ALNUM, 36), (
        "export GITHUB_TOKEN={s}", "use {s} for the API", "Authorization: token {s}",
        "git clone https://x-access-token:{s}@github.com/acme/app.git")),
    "github-pat": (lambda r: "github_pat_" + _pick(r, ALNUM, 22) + "_" + _pick(r, ALNUM, 59), (
        "GH_TOKEN={s}", "the fine-grained token {s} expires in 30 days")),
    "slack-token": (lambda r: r.choice(["xoxb-", "xoxp-", "xoxa-2-", "xoxr-"])
                    + str(r.randrange(10**11, 10**12)) + "-" + str(r.randrange(10**11, 10**12))
                    + "-" + _pick(r, ALNUM, 24), (
        "SLACK_BOT_TOKEN={s}", "client = WebClient(token='{s}')", "slack token {s}")),
    "slack-webhook": (lambda r: "https://hooks.slack.com/services/T" + _pick(r, UPPER_DIGITS, 8)
                      + "/B" + _pick(r, UPPER_DIGITS, 10) + "/" + _pick(r, ALNUM, 24), (
        "curl -X POST -d @msg.json {s}", "webhook: {s}")),
    "openai-key": (lambda r: r.choice([
        "sk-" + _pick(r, ALNUM, 20) + "T3BlbkFJ" + _pick(r, ALNUM, 20),
        "sk-proj-" + _pick(r, URLSAFE, 156),
        "sk-svcacct-" + _pick(r, URLSAFE, 120)]), (
        "export OPENAI_API_KEY={s}", "client = OpenAI(api_key=\"{s}\")",
        "my key is {s}, please debug")),
    "anthropic-key": (lambda r: r.choice(["sk-ant-api03-", "sk-ant-admin01-"])
                      + _pick(r, URLSAFE, 93) + "AA", (
        "ANTHROPIC_API_KEY={s}", "x-api-key: {s}", "anthropic.Anthropic(api_key='{s}')")),
    "jwt": (_jwt, (
        "Cookie: session={s}", "the id_token was {s}", '{{"access_token": "{s}"}}')),
    "private-key": (_pem, ("here is the deploy key:\n{s}\nkeep it safe", "{s}")),
    "url-password": (_password, (
        "DATABASE_URL=postgres://app:{s}@db.internal:5432/app",
        "redis://default:{s}@cache:6379/0", "git remote add origin https://dana:{s}@git.acme.io/x.git",
        "mongodb+srv://admin:{s}@cluster0.abcde.mongodb.net/test")),
    "assignment": (_password, (
        "PASSWORD={s}", "DB_PASSWORD=\"{s}\"", "API_KEY: {s}", "SECRET_KEY='{s}'",
        '"client_secret": "{s}"', "smtp_password = {s}", "  password: \"{s}\"",
        "MYSQL_ROOT_PASSWORD={s}", "auth_token => '{s}'")),
    "bearer-token": (lambda r: _pick(r, URLSAFE + ".~", 40), (
        "Authorization: Bearer {s}", "curl -H 'Authorization: Bearer {s}' https://api.acme.io",
        '"Authorization": "Bearer {s}"',
        "requests.get(url, headers={{'Authorization': 'Bearer {s}'}})")),
    "google-api-key": (lambda r: "AIza" + _pick(r, URLSAFE, 35), (
        "GOOGLE_API_KEY={s}", "maps?key={s}&q=x")),
    "stripe-key": (lambda r: r.choice(["sk_live_", "rk_live_", "sk_test_"]) + _pick(r, ALNUM, 24), (
        "STRIPE_SECRET_KEY={s}", "stripe.api_key = '{s}'")),
    "huggingface-token": (lambda r: "hf_" + _pick(r, string.ascii_letters, 34), (
        "HF_TOKEN={s}", "huggingface-cli login --token {s}")),
    "npm-token": (lambda r: "npm_" + _pick(r, ALNUM, 36), (
        "//registry.npmjs.org/:_authToken={s}",)),
    "gitlab-token": (lambda r: "glpat-" + _pick(r, URLSAFE, 20), ("GITLAB_TOKEN={s}",)),
    "sendgrid-key": (lambda r: "SG." + _pick(r, URLSAFE, 22) + "." + _pick(r, URLSAFE, 43), (
        "SENDGRID_API_KEY={s}",)),
    "cli-flag": (_password, ("mysql -u root --password={s} app", "psql --password {s}")),
}
# A secret may be reported under a more specific rule than the one planted
# (a GitHub token after "Authorization: token" is a github-token either way).
ACCEPTED_RULES: dict[str, frozenset[str]] = {
    "github-pat": frozenset({"github-token"}),
    "aws-secret-key": frozenset({"aws-secret-key", "assignment"}),
}


def planted(rng: random.Random, per_rule: int = 30) -> list[Planted]:
    """``per_rule`` secrets per rule, each in one of the rule's contexts."""
    out: list[Planted] = []
    for rule, (make, contexts) in SECRETS.items():
        for i in range(per_rule):
            secret = make(rng)
            out.append(Planted(rule, secret, contexts[i % len(contexts)].format(s=secret)))
    return out


def _data_uri(rng: random.Random) -> str:
    kind = rng.choice(["png", "jpeg", "gif", "webp"])
    return f"data:image/{kind};base64," + base64.b64encode(rng.randbytes(rng.choice([300, 3000]))
                                                            ).decode()


LOOKALIKE_MAKERS: dict[str, Callable[[random.Random], str]] = {
    "git-sha": lambda r: f"commit {r.randbytes(20).hex()}",
    "short-sha": lambda r: f"fixed in {r.randbytes(5).hex()[:r.choice([7, 8, 10])]} (see PR)",
    "sha256": lambda r: f"sha256:{hashlib.sha256(r.randbytes(8)).hexdigest()}",
    "sha256-sum": lambda r: f"{hashlib.sha256(r.randbytes(8)).hexdigest()}  dist/app.tar.gz",
    "md5": lambda r: f"md5 = {hashlib.md5(r.randbytes(8)).hexdigest()}",
    "uuid": lambda r: f"session {uuid.UUID(bytes=r.randbytes(16), version=4)}",
    "uuid-upper": lambda r: str(uuid.UUID(bytes=r.randbytes(16), version=4)).upper(),
    "data-uri": _data_uri,
    "base64-blob": lambda r: base64.b64encode(r.randbytes(r.choice([48, 90, 600]))).decode(),
    "long-word": lambda r: r.choice(["internationalization", "antidisestablishmentarianism",
                                     "Pneumonoultramicroscopicsilicovolcanoconiosis",
                                     "counterrevolutionaries", "electroencephalographically"]),
    "path": lambda r: r.choice([
        "/usr/lib/python3.11/site-packages/sklearn/ensemble/_forest.py",
        "node_modules/@types/react-dom/client.d.ts", "C:\\Users\\dana\\AppData\\Local\\Temp",
        "~/.claude/projects/-home-dana-code-northwind/5c1f8a2e.jsonl",
        "src/brainkeep/core/secrets.py:120"]),
    "prose": lambda r: r.choice([
        "The secret: always write the test first.", "Send a password reset link to the user.",
        "The token count is 5 per call.", "She was the bearer of bad news again.",
        "We rotate the API key every 90 days.", "Password: see the vault entry for staging.",
        "the auth flow redirects to /login", "token: a short string that names a session"]),
    "code": lambda r: r.choice([
        "password = os.environ['DB_PASSWORD']", "token = get_token(user)", "api_key=$API_KEY",
        "PASSWORD=${DB_PASSWORD}", "secret: true", "max_tokens=4096", "token_count = 12",
        "self.api_key = api_key", "if not password:", "headers['Authorization'] = f'Bearer {tok}'",
        "const token = await getToken();", "password: str | None = None",
        "SECRET_KEY = config.secret_key"]),
    "url": lambda r: r.choice([
        "https://user@example.com/path", "http://localhost:8080/api/v1/items?page=2",
        "git@github.com:acme/app.git",
        "https://github.com/acme/app/commit/" + r.randbytes(20).hex(),
        "postgres://localhost:5432/app", "https://docs.python.org/3/library/re.html#re.sub"]),
    "ids": lambda r: r.choice([
        "arn:aws:iam::123456789012:role/Admin", "i-0abcd1234efgh5678", "C024BE91L",
        "2026-03-02T09:14:03.120Z", "#1f2937", "v1.2.3-rc.4", "req_011CVx8k", "toolu_01NzjV452A",
        "msg_01ABCDEF", "call_abc123", "task-runner-7", "desk-lamp"]),
}


def lookalikes(rng: random.Random, per_kind: int = 30) -> list[tuple[str, str]]:
    """(kind, text) samples that must come out of scrubbing unchanged."""
    return [(kind, make(rng)) for kind, make in LOOKALIKE_MAKERS.items() for _ in range(per_kind)]
