"""The injection rules: what a write is scored on (docs/security.md publishes them).

Each rule has a stable id (event payloads, review output and the docs name
it), a weight and a test. ``core/injection.py`` adds the weights of the
rules that fire; a write scoring at or above ``injection.INJECTION_THRESHOLD``
is stored quarantined. Strong signals weigh the whole threshold alone; weak
ones (an imperative to "the agent", a secrecy demand) need a second.

*Directive* rules are phrases aimed at the reading model. The same phrase
quoted, or inside a note that discusses injection ("prompt injection",
"attackers write ..."), is talk about an attack rather than one, so a
directive hit inside quotes counts a quarter and one in a discussion half
(``MENTION_QUOTED``, ``MENTION_DISCUSSED``) unless its sentence speaks to
"you" (a discussion describes an attack, an attack addresses its reader).
Character tricks (invisible or bidirectional controls, homoglyphs, base64
blobs) and exfiltration URLs are never discounted: nobody quotes them by
accident.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from brainkeep.core.injection_anchors import Anchored, words_of

MENTION_QUOTED = 0.25
MENTION_DISCUSSED = 0.5


def _g(words: str) -> tuple[str, ...]:
    """A gate written as one ``|``-separated string."""
    return tuple(words.split("|"))


@dataclass(frozen=True)
class PatternRule:
    """A rule that fires when its pattern matches the folded, lower-cased text."""

    id: str
    weight: float
    pattern: re.Pattern[str]
    directive: bool  # discounted when quoted or discussed
    # The pattern runs only when one of these substrings is in the text: a
    # substring test costs nanoseconds, a regex over a turn microseconds.
    gate: tuple[str, ...]
    summary: str
    # Run the pattern only when this (cheap, anchored) regex finds something.
    prefilter: re.Pattern[str] | None = None
    # The gate as tested (__post_init__): an entry is open when all its words (or a
    # plural) are in the text, a wordless one ("://") as a substring; one-word ones: one set.
    gate_word: frozenset[bytes] = field(init=False, repr=False)
    gate_phrases: tuple[frozenset[bytes], ...] = field(init=False, repr=False)
    gate_marks: tuple[str, ...] = field(init=False, repr=False)
    anchored: Anchored = field(init=False, repr=False)  # how a long text is matched

    def __post_init__(self) -> None:
        entries = [(entry, frozenset(words_of(entry))) for entry in self.gate]
        single = {word for _, w in entries if len(w) == 1 for word in w}
        plurals = {word + end for word in single for end in (b"s", b"es")}
        object.__setattr__(self, "gate_word", frozenset(single | plurals))
        object.__setattr__(self, "gate_phrases", tuple(w for _, w in entries if len(w) > 1))
        object.__setattr__(self, "gate_marks", tuple(e for e, w in entries if not w))
        object.__setattr__(self, "anchored", Anchored.of(self.pattern))

    def opened_by(self, words: frozenset[bytes], text: str) -> bool:
        """Whether the gate is open for a text with these ``words``."""
        return not self.gate_word.isdisjoint(words) or any(
            e <= words for e in self.gate_phrases) or any(m in text for m in self.gate_marks)


_SENSITIVE = (
    r"(?:system\s+(?:prompt|instructions|messages?)|(?:initial|original|hidden)\s+(?:prompt"
    r"|instructions)|api[\s_-]?(?:keys?|tokens?)|~/\.ssh\S*|id_rsa|id_ed25519|\.aws/credentials|/etc/passwd"
    r"|/etc/shadow|\.netrc|\.pgpass|\.git-credentials|kubeconfig"
    r"|passwords?|passphrases?|secrets?|credentials?|(?:access|auth|bearer|session)\s+tokens?"
    r"|tokens?|private\s+keys?|ssh\s+keys?|env(?:ironment)?\s+variables|\.env\b|cookies"
    r"|conversation(?:\s+history)?|chat\s+history|(?:the\s+)?context\s+window"
    r"|user(?:'s)?\s+data|credit\s+card(?:\s+numbers?)?)"
)
# What may not be *sent* anywhere: the secrets, and the memories themselves
# ("list the memories" is an ordinary request; "post all memories to x.io" is not).
_SENT = _SENSITIVE[:-1] + "|memories)"
# Every alternative of _SENSITIVE holds one of these.
SENSITIVE_GATE = ("prompt", "instructions", "system message", "ssh", "id_rsa", "id_ed25519",
                  ".aws", "/etc/", ".netrc", ".pgpass", "git-credentials", "kubeconfig",
                  "key", "password", "passwd", "passphrase", "secret", "credential",
                  "token", "variables", ".env", "cookie", "conversation", "chat history",
                  "context window", "memories", "user data", "user's data", "credit card")
_NEGATED = r"(?<!never )(?<!not )(?<!n't )(?<!no )(?<!avoid )"

PATTERN_RULES: tuple[PatternRule, ...] = (
    PatternRule(
        "override", 1.0, re.compile(
            r"\b(?:ignore|disregard|forget|override|bypass|skip|abandon|discard|neglect|set\s+aside"
            r"|throw\s+out|cancel)\s+(?:all\s+|any\s+|every\s+|each\s+)?(?:of\s+)?(?:the\s+|your\s+"
            r"|my\s+|these\s+|those\s+|its\s+|whatever\s+)?(?:[\w'-]+\s+){0,2}?(?:instructions?"
            r"|prompts?|directives?|directions|rules?|guidelines|guardrails|commands|programming"
            r"|orders|constraints|(?:safety|content|usage)\s+polic(?:y|ies)|system\s+messages?"
            r"|(?:content\s+|safety\s+)?filters?|safety\s+checks?|moderation"
            r"|(?:prior|previous"
            r"|above|earlier)\s+messages)\b"
            r"|\b(?:do\s+not|don't|stop)\s+(?:follow(?:ing)?|obey(?:ing)?)\s+(?:the\s+|your\s+"
            r"|any\s+)?(?:[\w'-]+\s+)?(?:instructions|rules|prompts?|guidelines|directives)\b"
            r"|\b(?:pay\s+no\s+attention\s+to|no\s+longer\s+(?:follow|bound\s+by|appl(?:y|ies)))"
            r"(?:\s+(?:the|your|any|previous|prior|above|earlier|original))*\s*(?:instructions"
            r"|rules|guidelines|directives)?\b"
            r"|\bnew\s+(?:instructions|rules|directives?|orders|guidance)\s*(?::|follow|take\s+"
            r"precedence"
            r"|for\s+you)"
            r"|\b(?:instructions|rules|guidance|directives)\s+(?:above|before|you\s+(?:were|have"
            r"\s+been)\s+given)\s+(?:are|is|were)\s+(?:void|cancel+ed|obsolete|outdated|revoked)"
            r"|\b(?:guidance|instructions)\s+you\s+received\s+(?:before|earlier)\b[^.]{0,30}"
            r"\b(?:cancel+ed|void|revoked)"
            r"|\bforget\s+(?:whatever|what|everything)\s+(?:the\s+\w+|you|they|i|we)\s+"
            r"(?:said|told|wrote|were\s+told|asked)"
            r"|\byour\s+(?:instructions|rules|orders|guidelines)\s+(?:have|has)\s+changed"
            r"|\b(?:everything|anything|all|the\s+(?:text|context|content|instructions))\s+"
            r"(?:above|before)(?:\s+this(?:\s+(?:line|point|message))?)?\s+(?:is|are|was|were)\s+"
            r"(?:fake|false|outdated|void|invalid|obsolete|a\s+test|wrong)"
            r"|\b(?:prior|previous|earlier|above|original|existing|your|all|the)\s+(?:instructions"
            r"|directives|rules|guidelines|orders|guardrails)\s+(?:are|is|have\s+been|were)\s+"
            r"(?:now\s+)?(?:cancel+ed|void|suspended|revoked|lifted|obsolete|outdated|disabled)"
            r"|\b(?:follow|obey)\s+only\s+(?:the\s+)?(?:instructions|rules|orders)\s+(?:in|of"
            r"|from)\s+this|\bdo\s+(?:whatever|what|everything)\s+this\s+(?:note|memory"
            r"|message|page|document|text)\s+says|\bnot\s+what\s+your\s+(?:developers?|creators?"
            r"|operators?|system\s+prompt)\s+(?:said|say|told)"
            r"|\b(?:overrides?|supersedes?|replaces?|outranks?)\s+(?:the\s+|your\s+)(?:system\s+"
            r"prompt|instructions|rules|guidelines)"
            r"|\bignor(?:ez|e)\s+(?:toutes\s+)?les\s+instructions\s+(?:pr[ée]c[ée]dentes"
            r"|ant[ée]rieures)|\bignora\s+(?:todas\s+)?las\s+instrucciones\s+(?:anteriores"
            r"|previas)|\bignoriere\s+(?:alle\s+)?(?:vorherigen|bisherigen)\s+anweisungen",
            0), True,
        _g("instruction|prompt|directive|direction|rule|guideline|guardrail|command|"
           "programming|orders|constraint|policy|policies|messages|system message|guidance|"
           "no longer|"
           "attention|forget|everything above|everything before|anything above|"
           "anything before|all above|all before|text above|text before|context above|"
           "context before|content above|content before|filter|safety|moderation|"
           "whatever this|what this|everything this|not what your|instrucciones|anweisungen"),
        "tells the reader to drop its instructions (ignore/disregard/override previous "
        "instructions, new instructions follow)"),
    PatternRule(
        "role_hijack", 1.0, re.compile(
            r"\byou\s+are\s+(?:now|no\s+longer)\s+(?:an?\s+|the\s+|in\s+)?(?:[\w-]+\s+){0,2}?"
            r"(?:ai|assistant|model|chatbot|bot|llm|agent|dan|unrestricted|unfiltered|uncensored"
            r"|jailbroken|free\s+(?:of|from)|bound|(?:\w+\s+)?mode|acting|operating|programmed"
            r"|required\s+to|allowed\s+to\s+(?:ignore|bypass|break))\b"
            r"|\bfrom\s+now\s+on,?\s+you\s+(?:will\s+|must\s+|shall\s+)?(?:respond|answer"
            r"|reply|speak|write|act|behave|sign|only|never|always|are|obey)\b"
            r"|\b(?:act|behave|respond)\s+as\s+(?:an?\s+)?"
            r"(?:unrestricted|unfiltered|uncensored|jailbroken|evil|dan\b)"
            r"|\bpretend\s+(?:to\s+be|you\s+are)\s+(?:an?\s+|the\s+)?(?:unrestricted|different"
            r"|another|new|evil|my|system|admin|administrator|developer|operator|root)\b|\benter\s+(?:developer|god|debug|admin|dan|jailbreak)\s+mode"
            r"|\b(?:developer|god|dan|jailbreak)\s+mode\s+(?:enabled|activated|on)\b"
            r"|\byour\s+new\s+(?:role|persona|instructions|task|goal|job)\s+(?:is|are)\b"
            r"|\byour\s+(?:real|actual|true|secret|hidden)\s+(?:task|goal|job|mission|purpose"
            r"|instructions)\b|\bthe\s+real\s+(?:instructions|task)\s*(?::|are|is)"
            r"|\byou\s+(?:have\s+been|are)\s+(?:freed|released|liberated|unshackled)\s+from"
            r"|\brespond\s+as\s+['\"]?\w+bot\b|\bstop\s+being\s+(?:an?\s+)?(?:assistant|ai"
            r"|helpful|safe)\b|\bact\s+as\s+my\s+(?:deceased|late|dead)\s+\w+",
            0), True,
        _g("you are|from now on|act as|behave as|respond as|pretend|mode|your|the real|"
           "you have been|stop being"),
        "reassigns the reader's role or mode (you are now an unrestricted AI, your new "
        "role is, developer mode enabled)"),
    PatternRule(
        "impersonation", 1.0, re.compile(
            r"(?:^|\n)\s*\[?\s*(?:system|admin(?:istrator)?|developer|root|security|operator)"
            r"\s+(?:override|notice|directive|instruction|command|alert|message|update)s?\s*\]?"
            r"\s*:|\[\s*(?:system|admin|developer)(?:\s+(?:message|notice|note|override"
            r"|prompt))?\s*\]|\b(?:admin|administrator|developer|operator|system)\s+says\s*:"
            r"|\bthe\s+(?:admin|administrator|developer|operator|system)\s+says\s*:|\bnew\s+system\s+(?:prompt|message|instructions)\b"
            r"|\b(?:message|instruction|notice|order)s?\s+from\s+(?:the\s+|your\s+)?(?:system"
            r"|developers?|administrators?|admins?|operators?|openai|anthropic|creators?)\s*:"
            r"|\bthis\s+is\s+your\s+(?:system\s+)?(?:administrator|admin|developer|operator"
            r"|creator)\b|\btreat\s+(?:this|the\s+following|the\s+text\s+that\s+follows|what"
            r"\s+follows)\s+as\s+(?:an?\s+|the\s+)?(?:system|developer|admin)\w*\s+(?:message"
            r"|prompt|instructions?)",
            0), True,
        _g("system|admin|developer|root|security|operator|openai|anthropic|creator|"
           "this is your"),
        "speaks as the system, developer or administrator (SYSTEM OVERRIDE:, [SYSTEM], "
        "message from the developers:)"),
    PatternRule(
        "persistent_directive", 0.5, re.compile(
            r"\bfrom\s+(?:now|here)\s+on\b|\bfor\s+the\s+rest\s+of\s+(?:this|the)\s+"
            r"(?:session|conversation|chat)\b|\bin\s+every\s+(?:future\s+)?(?:answer|reply"
            r"|response)\b|\b(?:always|only)\s+(?:answer|respond|reply)\s+(?:with|in)\b"
            r"|\byou\s+are\s+now\s+(?:a|an|the|my|our|their)\s",
            0), True,
        _g("from now on|from here on|rest of|every|always|only|you are now"),
        "a standing order for every later answer (from now on, for the rest of the session, "
        "you are now a ...)"),
    PatternRule(
        "authority", 0.5, re.compile(
            r"\b(?:system|admin|developer|root)\s+(?:override|directive)\b|\bhighest\s+priority"
            r"\b|\b(?:supersedes?|overrides?|outranks?)\s+(?:all|any|every|the\s+system)\b"
            r"|\bsystem\s+prompt\b",
            0), True,
        _g("override|directive|priority|supersede|outrank|system prompt"),
        "claims priority over the system prompt (highest priority, supersedes all)"),
    PatternRule(
        "model_address", 0.5, re.compile(
            r"\b(?:if\s+you\s+are|attention|note\s+to|dear|hey|to\s+(?:all|any|every))\s+(?:an?\s+|the\s+|any\s+)?"
            r"(?:ai|llm|language\s+model|assistant|chatbot|agent|model|claude|chatgpt|gpt)s?\b"
            r"(?:\s+(?:reading|processing|seeing|that\s+reads|who\s+reads))?"
            r"|\b(?:ai|llm|assistant|agent|model)s?\s+(?:reading|processing|retrieving)\s+this"
            r"|\bwhen\s+you\s+(?:read|see|retrieve|recall|load|encounter)\s+this\b"
            r"|\bif\s+(?:an?\s+|any\s+)?(?:ai|llm|assistant|model|agent|chatbot)\s+(?:reads"
            r"|sees|processes|retrieves)\s+this\b"
            r"|\bthe\s+(?:assistant|ai|model|llm|chatbot)\s+(?:must|shall|will\s+now"
            r"|should\s+now)\b"
            # Marks one by one (a literal head is searched in C), a lookahead of the
            # letters that can follow, possessive ?+: a sentence start fails fast.
            r"|(?:^|\n|\.\s+|!\s+|\?\s+|:\s+)(?=[\sabcdhlmnpqrt])(?:hi|hello|hey|dear|attention|psa"
            r"|(?:quick\s+)?(?:note|reminder|message)\s+(?:to|for))?+\s*+(?:the\s+|any\s+|all\s+)?+"
            r"(?:automated\s+)?+(?:ai|llm|model|assistant|chatbot|bot)s?\s*[,:!]",
            0), True,
        _g("ai|llm|model|assistant|chatbot|bot|agent|claude|gpt|when you"),
        "addresses the model that will read the memory"),
    PatternRule(
        "secrecy", 0.5, re.compile(
            r"\b(?:do\s+not|don't|never)\s+(?:tell|inform|mention|reveal|show|alert|notify|warn)"
            r"\b[^.\n]{0,30}?\b(?:to\s+)?(?:the\s+|your\s+)?(?:user|human|operator|owner|anyone)"
            r"|\bhidden\s+from\s+the\s+(?:user|human|operator)"
            r"|\bwithout\s+(?:telling|informing|asking|alerting|notifying)\s+(?:the\s+|your\s+)?"
            r"(?:user|human|operator|owner)|\bkeep\s+(?:this|it)\s+(?:secret|hidden|quiet)\s+"
            r"from\b|\b(?:silently|secretly|covertly|quietly)\s+(?:send|forward|upload|run"
            r"|execute|add|include|append|insert|copy|change|delete|email|replace|modify|alter)",
            0), True,
        _g("tell|inform|mention|reveal|show|alert|notify|warn|without|keep this|keep it|"
           "hidden|silently|secretly|covertly|quietly"),
        "asks the reader to hide what it does from the user"),
    PatternRule(
        "user_manipulation", 0.5, re.compile(
            r"\b(?:tell|ask|instruct|convince|persuade|urge)\s+(?:the\s+)?(?:user|human|customer)"
            r"s?\s+to\s+(?:visit|go\s+to|open|click|enter|type|send|share|give|download|install"
            r"|run|paste|reply\s+with)\b|\binstead\s+of\s+(?:answering|replying|responding"
            r"|summari[sz]ing|helping|doing\s+what)\b",
            0), True,
        _g("user|human|customer|instead of"),
        "steers the user (tell the user to visit/enter/download, instead of answering ...)"),
    PatternRule(
        "credential_request", 1.0, re.compile(
            _NEGATED + r"\b(?:reveal|print|output|dump|leak|disclose|expose|exfiltrate|repeat"
            r"|recite|paste|echo|display|give\s+(?:me|us|him|her|them|the\s+\w+)|tell\s+me"
            r"|show\s+me|send\s+me|share|list|include|append|attach|copy|write\s+out"
            r"|read\s+out)\s+"
            r"(?:back\s+)?(?:all\s+)?(?:of\s+)?(?:the\s+contents?\s+of\s+)?(?:the\s+|your\s+"
            r"|my\s+|any\s+|every\s+|their\s+|its\s+|the\s+user'?s'?\s+)?(?:full\s+"
            r"|complete\s+|entire\s+|stored\s+|saved\s+|current\s+|database\s+|admin\s+"
            r"|root\s+|production\s+)?" + _SENSITIVE
            + r"|\b(?:repeat|print|output|reveal|show|recite)\s+(?:everything|all(?:\s+the)?"
            r"\s+text|the\s+text|all)\s+(?:above|before|preceding)\b",
            0), True,
        (*SENSITIVE_GATE, "above", "before", "preceding"),
        "asks for the system prompt, keys, passwords, tokens or the conversation"),
    PatternRule(
        "send_to", 1.0, re.compile(
            r"\b(?:send|post|forward|upload|transmit|email|e-mail|exfiltrate|leak|pipe|submit"
            r"|copy|report|relay|beacon)\s+(?:\S+\s+){0,6}?" + _SENT
            + r"\b(?:\s+\S+){0,6}?\s+(?:to|at|into|via)\s+(?:https?://|ftp://|\S+@\S+\.\w"
            r"|[\w-]+(?:\.[\w-]+)+|(?:this|my|our|the\s+following)\s+(?:url|endpoint|server"
            r"|webhook|address))",
            0), True,
        SENSITIVE_GATE,
        "tells the reader to send secrets or the conversation to an address"),
    PatternRule(
        "exfil_url", 1.0, re.compile(
            r"(?:https?|ftp)://[^\s\"'<>)]*(?:[?&][\w.-]{1,30}=(?:\{|\[|<|\$|%7b|%5b|%3c)"
            r"|(?:\{\{?|\$\{|<|\[)\s*[\w.]*?(?:secret|api_?key|token|passw|credential|creds"
            r"|conversation|history|chat|context|cookie|session|memor|summary|prompt|data|info)"
            r"[\w. ]{0,30}(?:\}\}?|>|\]))"
            r"|!\[[^\]]{0,80}\]\(\s*(?:https?:)?//[^)\s]*\?[^)\s]*=[^)\s]*\)",
            0), False,
        _g("://"),
        "a URL with a slot for data (https://x.io/?d={secret}, a markdown image with a query)"),
    PatternRule(
        "markup", 1.0, re.compile(
            r"</?\s*(?:system|assistant|user|human|tool_?call|tool_?use|tool_?result"
            r"|function_?calls?|function_?results?|invoke|antml:\w+|im_start|im_end"
            r"|instructions?|admin|developer|sys|inst|prompt|context|untrusted|trusted)\b"
            r"[^>]{0,80}>"
            r"|<\|\s*(?:im_start|im_end|system|user|assistant|endoftext|eot_id|start_header_id"
            r"|end_header_id|begin_of_text)\s*\|>|\[/?\s*(?:inst|sys|system)\s*\]|<<\s*/?sys\s*>>"
            r"|\"(?:tool_calls|function_call)\"\s*:|```\s*(?:tool_code|tool_call|function_call)",
            0), True,
        ("<", "[", '"tool_calls', '"function_call', "```"),
        "fake chat markup: <system>, <tool_call>, <|im_start|>, [INST], tool_calls JSON"),
    PatternRule(
        "chat_turn", 1.0, re.compile(
            r"(?:^|\n)\s*(?:#{1,4}\s*)?(?:system|assistant|human|user|ai|developer|claude|chatgpt"
            r"|gpt-?\d?)\s*(?:message|prompt|turn)?\s*:\s*\S.*\n(?:.*\n){0,20}?\s*(?:#{1,4}\s*)?"
            r"(?:system|assistant|human|user|ai|developer|claude|chatgpt)\s*(?:message|prompt"
            r"|turn)?\s*:"
            r"|\n\s*+(?:#{1,4}\s*)?(?:system|assistant|human|developer)\s*(?:message"
            r"|prompt)?\s*:"
            r"|^\s*(?:#{1,4}\s*)?(?:system|developer)\s*(?:message|prompt)?\s*:",
            0), True,
        _g("system|assistant|human|user|ai|developer|claude|chatgpt|gpt"),
        "fake chat-turn headers (System:, Assistant:, a second Human: line)",
        # Every match starts with a role header at the start of a line: one
        # anchored scan finds whether there is one before the costly pattern runs.
        prefilter=re.compile(r"^[ \t#]*(?:system|assistant|human|user|ai|developer|claude"
                             r"|chatgpt|gpt)[^:\n]{0,12}:", re.MULTILINE)),
    PatternRule(
        "run_command", 1.0, re.compile(
            r"\b(?:curl|wget|iwr|invoke-webrequest)\b[^\n|;]{0,200}\|\s*(?:sudo\s+)?(?:ba|z)?sh\b"
            r"|\brm\s+-(?:rf|fr)\s+(?:/|~|\*|\$home)(?:\s|$)|\bchmod\s+\+x\b[^\n]{0,80}&&"
            r"|\b(?:base64\s+-d|frombase64string)\b[^\n]{0,80}\|\s*(?:ba)?sh"
            r"|\b(?:nc|ncat|netcat)\s+-e\b",
            0), False,
        _g("curl|wget|iwr|invoke-webrequest|rm|chmod|base64|frombase64string|nc|ncat|netcat"),
        "a download-and-run or destructive shell line (curl ... | sh, rm -rf /)"),
    PatternRule(
        "tool_invocation", 1.0, re.compile(
            r"\b(?:call|invoke|execute|trigger|run|use)\s+(?:the\s+)?(?:tool|function)\s+"
            r"(?:named\s+|called\s+)?[`'\"]?\w+[`'\"]?\s+with\s+\w+\s*="
            r"|\b(?:call|invoke|execute|trigger)\s+the\s+[`'\"]?[\w-]+[`'\"]?\s+(?:tool|function)"
            r"\s+with\s+\w+\s*=",
            0), True,
        _g("tool|function"),
        "names a tool and its arguments for the reader to call (call the tool X with a=...)"),
    PatternRule(
        "tool_directive", 0.5, re.compile(
            r"\b(?:immediately|now|automatically)\s+(?:call|invoke|execute|run)\b",
            0), True,
        _g("immediately|now|automatically"),
        "tells the reader to call a tool or run something now"),
)

# Words that mark a text as *about* injection (a security note, a test case).
DISCUSSION = re.compile(
    r"\b(?:prompt[\s-]+injections?|injection\s+(?:attacks?|attempts?|payloads?|examples?|tests?)"
    r"|jailbreak\s+(?:attempts?|prompts?)|attackers?|adversar(?:y|ies|ial)|malicious|phishing"
    r"|red[\s-]team\w*|for\s+example|e\.g\.|such\s+as|phrases?\s+like|strings?\s+like"
    r"|detect(?:s|ed|or|ion)?|flag(?:s|ged)?|scanner|classifier|quarantin\w*|heuristics?)\b",
    0)

# A discussion is in the third person: a sentence that says "you" is not discounted.
SECOND_PERSON = re.compile(r"\b(?:you|your|yourself|you're|you'll)\b")
SENTENCE_END = re.compile(r"[.!?\n]")

# Spans in straight or curly double quotes, backticks, or single quotes after a space ("don't").
QUOTED = re.compile(r"\"[^\"\n]{1,300}\"|“[^”\n]{1,300}”|`[^`\n]{1,300}`|(?:^|\s)'[^'\n]{1,300}'")

# --- character tricks -----------------------------------------------------
# Bidirectional overrides/isolates and Unicode tag characters: never in prose.
BIDI = frozenset(map(chr, (*range(0x202A, 0x202F), *range(0x2066, 0x206A))))
TAG_RANGE = (0xE0000, 0xE007F)
# Invisible separators; ZWJ/ZWNJ are left out (emoji sequences, Persian, Indic).
INVISIBLE = frozenset(map(chr, (0x200B, 0x200E, 0x200F, 0x2060, 0x2061, 0x2062, 0x2063,
                                0x2064, 0xFEFF, 0x180E, 0x034F, 0x061C, 0x115F, 0x1160,
                                0x3164)))
INVISIBLE_STRONG = 3  # this many invisible characters weigh the whole threshold
# The same sets as character classes: one C-speed scan each, no Python loop.
BIDI_CHARS = re.compile("[" + "".join(sorted(BIDI)) + "\U000e0000-\U000e007f]")
INVISIBLE_CHARS = re.compile("[" + "".join(sorted(INVISIBLE)) + "]")
HIDDEN_CHARS = re.compile("[" + "".join(sorted(BIDI | INVISIBLE)) + "\U000e0000-\U000e007f]")
# Greek letters that are ordinary units or symbols beside Latin letters.
GREEK_SYMBOLS = frozenset("μπΔΩαβγλσθτφχψωΣΠ")
# Base64: a run this long (not all hex, mixed case and digits) is a blob,
# matched where BASE64_TABLE finds one (core/injection._base64).
BASE64_RUN = re.compile(r"[A-Za-z0-9+/_-]{80,}={0,2}")
BASE64_STRONG = 160
HEX_ONLY = re.compile(r"[0-9a-fA-F]+")
BASE64_TABLE = bytes(120 if chr(c).isascii() and (chr(c).isalnum() or chr(c) in "+/_-") else 32
                     for c in range(256))  # BASE64_RUN's characters as "x", the rest " "
BASE64_SEED = b"x" * 80
# Cyrillic letters that look like Latin ones: folded before the directive rules.
CONFUSABLES = str.maketrans({
    "а": "a", "е": "e", "о": "o", "р": "p", "с": "c", "у": "y", "х": "x", "і": "i",
    "ј": "j", "ѕ": "s", "ԁ": "d", "ɡ": "g", "һ": "h", "ӏ": "l", "ո": "n", "ս": "u",
    "А": "A", "В": "B", "Е": "E", "К": "K", "М": "M", "Н": "H", "О": "O", "Р": "P",
    "С": "C", "Т": "T", "Х": "X", "І": "I", "Ј": "J", "Ѕ": "S", "ο": "o", "α": "a",
    "ν": "v", "ι": "i", "Ι": "I", "Ο": "O", "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z",
    "Η": "H", "Κ": "K", "Μ": "M", "Ν": "N", "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X",
})

_CONFUSABLE_CLASS = "[" + "".join(sorted(map(chr, CONFUSABLES))) + "]"
CONFUSABLE_RUNS = re.compile(_CONFUSABLE_CLASS + "+")
# Letters of the scripts the homoglyph rule counts (core/injection._homoglyph_weight).
MIXABLE_SCRIPTS = re.compile("[\u0370-\u03ff\u0400-\u04ff\uff21-\uff5a\U0001d400-\U0001d7ff]")

# Any character a character rule counts or the folding maps.
SUSPECT_CHARS = re.compile("[" + "".join(sorted(BIDI | INVISIBLE | set(map(chr, CONFUSABLES))))
                           + "\U000e0000-\U000e007f\u0370-\u04ff\uff21-\uff5a"
                           "\U0001d400-\U0001d7ff]")

# Rules computed from characters rather than patterns (ids and summaries for the docs).
CHARACTER_RULES: tuple[tuple[str, str], ...] = (
    ("bidi_control", "bidirectional override or isolate controls (U+202A-U+202E, "
                     "U+2066-U+2069), or Unicode tag characters (U+E0000-U+E007F)"),
    ("invisible", "invisible separators (zero-width space, word joiner, BOM inside text, "
                  "...); one or two weigh 0.5, three or more 1.0"),
    ("homoglyph", "a word mixing Latin with Cyrillic or Greek letters (Greek unit symbols "
                  "such as μ excepted), fullwidth or mathematical letters"),
    ("base64_blob", "a base64-like run of 80+ characters (not hex): 0.5, 160+ characters: 1.0"),
)
