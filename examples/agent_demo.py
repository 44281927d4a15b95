"""Act as an agent: talk MEMORY_VERBS to a real `brainkeep serve` over stdio.

Run after `brainkeep init` (and optionally `brainkeep import examples/notes`):

    python examples/agent_demo.py

It spawns `brainkeep serve --surface verbs` with the official MCP client, then
remembers a fact, recalls it by entity, and looks the entity up as a card —
the same calls Claude Code or Codex make once connected.
"""

from __future__ import annotations

import json
import os
import sys

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client


async def call(client: ClientSession, tool: str, /, **arguments: object) -> dict:
    result = await client.call_tool(tool, arguments)
    payload = json.loads(result.content[0].text)
    if result.is_error:
        raise SystemExit(f"{tool} failed: {payload['message']} ({payload['suggestion']})")
    return payload


async def main() -> None:
    server = StdioServerParameters(
        command=sys.executable,
        args=["-m", "brainkeep", "serve", "--surface", "verbs"],
        env=dict(os.environ),
    )
    async with stdio_client(server) as (read, write), ClientSession(read, write) as client:
        await client.initialize()
        tools = [tool.name for tool in (await client.list_tools()).tools]
        print("tools:", ", ".join(tools))

        saved = await call(
            client, "remember", fact="Alice prefers async updates over meetings",
            provenance="agent_demo.py", entity="Alice Chen", kind="preference",
        )
        print(f"remember -> {saved['status']} fact {saved['id']} about {saved['entity_slug']}")

        recalled = await call(client, "recall", entity="Alice Chen", budget_tokens=200)
        print(f"recall   -> {recalled['total']} fact(s):")
        for fact in recalled["facts"]:
            print(f"   [{fact['fact_id']}] {fact['fact']}  (provenance: {fact['provenance']})")

        card = await call(client, "entity", name="Alice Chen")
        if card["found"]:
            entity = card["card"]["entity"]
            print(f"entity   -> {entity['title']} ({entity['slug']}): {card['card']['summary']}")
            print(f"            {card['card']['active_fact_count']} active facts, "
                  f"{len(card['card']['edges'])} edges, {card['latency_ms']} ms")
        else:
            print("entity   -> not found (import examples/notes first for a full card)")


if __name__ == "__main__":
    anyio.run(main)
