"""CLI commands for the seven verbs (and `search`), generated from the operation catalog.

Each verb becomes `brainkeep <verb-name>`: its first required parameter is a
positional argument, the rest are `--options`. A verb with no required
parameter but a `query` (recall) takes the query as an optional positional
argument too, as people type it: `recall "Alice"` is `recall --query "Alice"`.
Calls go through the same dispatcher as MCP, as the trusted local caller in
the tenant the root `--org` option selects.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import click

from brainkeep.cli.app import CliContext, json_option, report_error
from brainkeep.cli.verb_help import HELP
from brainkeep.errors import InvalidInput
from brainkeep.ops.catalog import Operation, Param
from brainkeep.ops.registry import build_catalog, open_dispatcher

pass_cli = click.make_pass_decorator(CliContext, ensure=True)

_SHORT = {"provenance": "-p", "entity": "-e"}
_CLICK_TYPES: dict[str, Any] = {"string": str, "number": float, "integer": int}
# Non-verb operations that are CLI commands too, built the same way.
_EXTRA_OPS = ("search",)


def _flags(param: Param) -> str:
    """How a person spells the option of ``param``: ``-p/--provenance``."""
    flag = "--" + param.name.replace("_", "-")
    return f"{_SHORT[param.name]}/{flag}" if param.name in _SHORT else flag


def _option(param: Param) -> Callable[[Any], Any]:
    flag = "--" + param.name.replace("_", "-")
    names = [flag] + ([_SHORT[param.name]] if param.name in _SHORT else [])
    if param.type == "boolean":
        return click.option(*names, param.name, is_flag=True, default=None, help=param.description)
    # Counts read better as integers on a command line than JSON's "number".
    kind: Any = int if param.name in ("limit", "budget_tokens") else _CLICK_TYPES.get(
        param.type, str)
    if param.enum:
        kind = click.Choice(param.enum)
    # Not click's required=True: a missing value must still reach the CLI's
    # error edge (JSON on stderr with --json, exit 2), naming the flag.
    text = f"{param.description} [required]" if param.required else param.description
    return click.option(*names, param.name, type=kind, default=None, help=text)


def _require(params: dict[str, Any], required: list[Param]) -> None:
    """A missing required option, said in the shell's words (the flag, not the JSON name)."""
    for param in required:
        if params.get(param.name) is None:
            metavar = "TEXT" if param.type == "string" else param.type.upper()
            raise InvalidInput(
                f"{_flags(param)} is required.",
                suggestion=f"Pass {_flags(param)} {metavar}: {param.description}",
                field=param.name,
            )


def _human_fact(f: dict[str, Any]) -> str:
    where = f.get("entity_slug") or "-"
    return f"[{f['fact_id']}] {f['fact']}  ({where}; {f.get('provenance')})"


def _evidence_label(result: dict[str, Any], envelope: dict[str, Any]) -> str:
    """The evidence as a person should read it.

    MEMORY_VERBS v1 freezes the enum, so a keyword-only search still sends
    ``weak_semantic`` for a partial keyword hit; no semantic arm ran, so the
    shell says what it was.
    """
    if result["evidence"] == "weak_semantic" and envelope.get("search_degraded"):
        return "weak keyword match"
    return str(result["evidence"])


def _render_recall(r: dict[str, Any]) -> str:
    lines = [_human_fact(f) for f in r["facts"]] or ["(no facts)"]
    for res in r.get("results", []):
        lines.append(f"page {res['slug']} — {res['title']} [{_evidence_label(res, r)}]")
    if "budget_tokens" in r:
        used, budget, dropped = r["budget_used"], r["budget_tokens"], r["dropped_count"]
        lines.append(f"budget {used}/{budget}, dropped {dropped}")
    return _with_note("\n".join(lines), r)


def _with_note(text: str, r: dict[str, Any]) -> str:
    """``text``, then the entity note: a name taken as a page, or one that matched none."""
    note = (r.get("entity_resolution") or {}).get("note")
    return f"{text}\nnote: {note}" if note else text


def _render_entity(r: dict[str, Any]) -> str:
    if not r["found"]:
        names = ", ".join(s["slug"] for s in r.get("suggestions", [])) or "none"
        return f"not found (suggestions: {names})"
    card = r["card"]
    lines = [f"{card['entity']['title']} ({card['entity']['slug']}, {card['entity']['type']})"]
    if card["aka"]:
        lines.append("aka: " + ", ".join(card["aka"]))
    if card["summary"]:
        lines.append(card["summary"])
    lines.extend(f"  {t['kind']}: {t['text']} ({t['date']})" for t in card["open_threads"])
    lines.extend(f"  {e['direction']} {e['type']} {e['slug']}" for e in card["edges"])
    lines.append(f"facts {card['active_fact_count']}, backlinks {card['backlink_count']}")
    return "\n".join(lines)


def _render_search(r: dict[str, Any]) -> str:
    lines = []
    for res in r["results"]:
        snippet = " ".join(str(res["chunk_text"]).split())
        if len(snippet) > 100:
            snippet = snippet[:99] + "…"
        lines.append(f"{res['slug']} — {res['title']} [{_evidence_label(res, r)}]\n    {snippet}")
    if not lines:
        lines.append("(no pages)")
    if r.get("search_degraded"):
        lines.append(f"(search degraded: {r['search_degraded']})")
    return "\n".join(lines)


# The root help's line for an operation that has no MCP title.
_SUMMARY = {"search": "Search pages only (recall also reads facts)."}

def _erased(r: dict[str, Any]) -> str:
    """forget --redact: where the receipt is (the human line cannot hold the JSON)."""
    if not r.get("redacted"):
        return ""
    event = (r.get("receipt") or {}).get("event") or {}
    return (f"; its text is erased (receipt event {event.get('seq')}; keep the --json output "
            "and check it with `brainkeep verify --receipt FILE`)")


_RENDER: dict[str, Callable[[dict[str, Any]], str]] = {
    "recall": _render_recall,
    "entity": _render_entity,
    "remember": lambda r: _with_note(str(r["status_text"]), r),
    "forget": lambda r: f"fact {r['id']} " + ("expired" if r["expired"] else "was already expired")
    + _erased(r),
    "synthesize": lambda r: r["answer"] + "\n\nsources: " + ", ".join(r["sources"]),
    "search": _render_search,
    "context_pack": lambda r: r["text"] or "(empty pack)",
    "delta": lambda r: (r["text"] or "(nothing changed)")
    + ("\n(more pending: call again)" if r["has_more"] else ""),
}


def _fold_positional(kwargs: dict[str, Any], name: str) -> None:
    """Move the optional positional ``name`` into its option; both given is a usage error."""
    given = kwargs.pop(f"{name}_arg")
    if given is None:
        return
    if kwargs.get(name) is not None:
        flag = "--" + name.replace("_", "-")
        raise click.UsageError(
            f"Give the {name} once: as the {name.upper()} argument or as {flag}, not both."
        )
    kwargs[name] = given


def make_verb_command(op: Operation) -> click.Command:
    """A click command running ``op`` locally through the dispatcher."""
    positional = next((p for p in op.params if p.required), None)
    optional = None if positional else next((p for p in op.params if p.name == "query"), None)
    required_options = [p for p in op.params if p.required and p is not positional]

    @pass_cli
    def run(cli: CliContext, **kwargs: Any) -> None:
        if optional is not None:
            _fold_positional(kwargs, optional.name)
        params = {k: v for k, v in kwargs.items() if v is not None}
        _require(params, required_options)
        brain = cli.brain()
        dispatcher = open_dispatcher(brain, "full")
        outcome = dispatcher.call(op.name, params, cli.caller)
        if outcome.is_error:
            raise SystemExit(report_error(cli, outcome.payload, retryable=outcome.retryable))
        if cli.json_mode:
            click.echo(json.dumps(outcome.payload, indent=2, ensure_ascii=False))
        else:
            click.echo(_RENDER[op.name](outcome.payload))

    command = json_option(run)
    for param in reversed(op.params):
        if param is positional:
            continue
        command = _option(param)(command)
    help_text = HELP.get(op.name, op.description)
    if positional is not None:
        command = click.argument(positional.name)(command)
    elif optional is not None:
        name = optional.name
        argument = click.argument(f"{name}_arg", metavar=f"[{name.upper()}]", required=False)
        command = argument(command)
        help_text += f"\n\n{name.upper()} is the same as --{name} (give one of them)."
    summary = str(op.annotations.get("title", _SUMMARY.get(op.name, op.name)))
    return click.command(name=op.name.replace("_", "-"), help=help_text, short_help=summary)(
        command
    )


def _cli_ops() -> list[Operation]:
    catalog = build_catalog()
    extra = [op for op in catalog.operations if op.name in _EXTRA_OPS]
    return [*catalog.verbs, *extra]


def verb_commands() -> list[click.Command]:
    return [make_verb_command(op) for op in _cli_ops()]


def verb_command(name: str) -> click.Command:
    """The command of the verb (or `search`) ``name`` (CLI spelling: ``context-pack``),
    for the lazy root group.

    Raises:
        KeyError: ``name`` is no verb of the catalog, nor `search`.
    """
    for op in _cli_ops():
        if op.name.replace("_", "-") == name:
            return make_verb_command(op)
    raise KeyError(name)
