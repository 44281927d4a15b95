"""`--help` of the memory-verb commands, written for a person at the shell.

The catalog's descriptions (ops/verb_ops.py) are written for an agent
reading `tools/list` ("branch on `status`…"); a person typing
`brainkeep remember --help` wants what the command does and an example.
Options keep the catalog's one-line parameter descriptions, which read well
in both places.
"""

from __future__ import annotations

HELP: dict[str, str] = {
    "recall": (
        "Find facts (and, with a query, pages) you remembered earlier.\n\n"
        "Filters compose: -e ENTITY keeps facts about one person or thing (a name, title, "
        "alias or slug), --since keeps newer ones, --grep keeps facts containing a text. "
        "A QUERY also searches pages and ranks facts by relevance.\n\n"
        "\b\nExamples:\n"
        '  brainkeep recall "where does Alice live"\n'
        '  brainkeep recall -e "Alice Chen" --since 2026-06-01'
    ),
    "remember": (
        "Save one fact, with where it came from.\n\n"
        "-p/--provenance is required: a short note such as \"call 2026-06-12\" or "
        '"user said in chat". File the fact under the person or thing it is about with '
        "-e (a name, title, alias or slug); the output says which page it landed on. "
        "Saving the same text again keeps the fact you already have.\n\n"
        "\b\nExamples:\n"
        '  brainkeep remember "Alice moved to Berlin" -p "call 2026-06-12" -e "Alice Chen"\n'
        '  brainkeep remember "Standup moved to 10:00" -p chat --ttl 30d'
    ),
    "entity": (
        "Show one person, company or project as a compact card: summary, aliases, open "
        "threads, links and fact counts.\n\n"
        "NAME may be a slug, a title or an alias. A name that matches nothing prints "
        "`not found` with suggestions (exit 0).\n\n"
        "\b\nExample:\n"
        '  brainkeep entity "Ali Chen"'
    ),
    "synthesize": (
        "Answer a question from the brain with a chat model, citing the pages it used.\n\n"
        "Needs a chat provider: `brainkeep config set chat.provider openai|anthropic`.\n\n"
        "\b\nExample:\n"
        '  brainkeep synthesize "What did we decide about the launch?"'
    ),
    "forget": (
        "Expire one fact so recall no longer returns it. ID is the number `remember` "
        "printed (or a fact_id from `recall --json`). The audit log keeps the event.\n\n"
        "\b\nExample:\n"
        '  brainkeep forget 3 --reason "wrong person"'
    ),
    "context_pack": (
        "Print a compact briefing on one or more entities (comma-separated), under a token "
        "budget: what an agent reads at the start of a session.\n\n"
        "\b\nExample:\n"
        '  brainkeep context-pack "Alice Chen,Acme" --budget-tokens 800'
    ),
    "delta": (
        "Print what changed since a time or since the last call of this session "
        "(--session-id keeps a cursor).\n\n"
        "\b\nExample:\n"
        "  brainkeep delta --since 2026-06-01"
    ),
    "search": (
        "Search pages only (recall also reads facts): slug, title, why it matched and a "
        "snippet.\n\n"
        "\b\nExample:\n"
        '  brainkeep search "launch plan"'
    ),
}
