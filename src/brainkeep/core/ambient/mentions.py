"""Names a prompt may mention: the candidates the entity arm looks up.

Cheap and lexical (no model): runs of capitalised words ("Alice Chen",
"Project Falcon"), quoted or back-ticked strings, and slug-like words
(``billing-service``). Each candidate is resolved by exact tiers only
(alias, title, slug) so a common word never pulls in a page.
"""

from __future__ import annotations

import re

MAX_MENTIONS = 6
MAX_WORDS = 4
_QUOTED = re.compile(r"[`\"“]([^`\"”\n]{2,60})[`\"”]")
_SLUGLIKE = re.compile(r"\b[a-z0-9]+(?:[-_/][a-z0-9]+)+\b")
_CAPITAL_RUN = re.compile(r"\b[A-Z][\w'’.-]*(?:\s+(?:[A-Z][\w'’.-]*|of|de|van|von))*")
# Capitalised only because they open a sentence or are the speaker.
_COMMON = frozenset(
    "I I'm I've I'll Im The A An This That These Those It Its What Who When Where Why How "
    "Can Could Should Would Will Do Does Did Is Are Was Were Please Thanks Thank Ok Okay Yes "
    "No Let Lets Let's Also And But Or If So Then Now Here There We You My Our Your Hi Hello "
    "Hey Tell Show Give Find Remind Remember Recall Write Add Fix Make Use Check".split()
)


def mentions(prompt: str) -> list[str]:
    """Up to ``MAX_MENTIONS`` distinct candidate names, in prompt order."""
    found: list[str] = []

    def offer(name: str) -> None:
        name = name.strip(" .,:;!?'’")
        if len(name) >= 2 and name.lower() not in {f.lower() for f in found}:
            found.append(name)

    text = prompt or ""
    for match in _QUOTED.finditer(text):
        offer(match.group(1))
    for match in _CAPITAL_RUN.finditer(text):
        words = match.group(0).split()
        while words and words[0] in _COMMON:
            words = words[1:]
        if words:
            offer(" ".join(words[:MAX_WORDS]))
    for match in _SLUGLIKE.finditer(text):
        offer(match.group(0))
    return found[:MAX_MENTIONS]
