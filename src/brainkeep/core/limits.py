"""Every cap on caller input, in one place (documented in docs/limits.md).

A cap protects the one writer and the hash chain from a single call that
would hold the write lock for seconds, or a value that would end as an
internal error deep in the stack. The modules that enforce a cap import it
from here, so the table in docs/limits.md and the code cannot disagree
(tests/core/test_hostile_input.py checks that every name below is listed
there).
"""

from __future__ import annotations

# --- counts per call -------------------------------------------------------
MAX_IDS_PER_CALL = 1000  # gRPC Forget / Share / Delegate / Consolidate memory ids
MAX_SHARE_TARGETS = 100  # gRPC Share target_agent_id(s)
MAX_SHARE_GRANTS = 1000  # gRPC Share: memories x targets (ACL rows, events) per call
MAX_TAGS = 64  # gRPC tags per request
MAX_ENTITIES = 8  # context_pack / delta entities (extra names are ignored)

# --- result sizes: below 1 is invalid_params, above the max is clamped ------
RECALL_LIMIT_DEFAULT = 50  # MCP recall, per arm
RECALL_LIMIT_MAX = 100
SEARCH_LIMIT_DEFAULT = 20  # MCP search
SEARCH_LIMIT_MAX = 100
LIST_LIMIT_DEFAULT = 50  # MCP list_pages / CLI list
LIST_LIMIT_MAX = 500
GRPC_RECALL_LIMIT_DEFAULT = 10  # gRPC Recall
GRPC_RECALL_LIMIT_MAX = 100
ORIENTATION_BUDGET_DEFAULT = 512  # gRPC Recall orientation_cache.token_budget
ORIENTATION_BUDGET_MAX = 8192

# --- text sizes --------------------------------------------------------------
MAX_FACT_CHARS = 4000  # remember `fact`
MAX_PROVENANCE_CHARS = 500  # remember `provenance`
MAX_SESSION_CHARS = 200  # session ids (delta keeps this many characters)
MAX_QUERY_CHARS = 8192  # recall/search `query`, gRPC Recall `query`
MAX_CONTENT_CHARS = 65_536  # gRPC Remember `content`
MAX_ID_CHARS = 256  # agent, org, thread, branch ids
MAX_TAG_CHARS = 128
MAX_PAGE_BYTES = 1_048_576  # page markdown, UTF-8 bytes
# frontmatter `search_context`: read with every chunk by the embedding models,
# whose window (256 tokens for MiniLM) a longer one would fill on its own.
MAX_SEARCH_CONTEXT_CHARS = 1000
TRANSCRIPT_PART_BYTES = 65_536  # turns per transcript page, by UTF-8 bytes (then a new part)
# One imported turn; the rest is cut, with a note saying so. A part page then stays
# within what the injection scorer reads whole (core/injection.py's two 64K windows).
TRANSCRIPT_TURN_BYTES = 122_880
# Stored frontmatter larger than this is not served (a page stored before
# aliases were refused can hold a YAML expansion of tens of MB).
MAX_STORED_FRONTMATTER_CHARS = 4 * MAX_PAGE_BYTES

# --- structure ---------------------------------------------------------------
MAX_JSON_DEPTH = 64  # nesting of any JSON (or YAML frontmatter) a caller sends
MAX_JSON_CHARS = 1_000_000  # gRPC metadata / state_snapshot text
MAX_ID_DIGITS = 18  # integer fact ids: longer digit strings cannot name a row (int64)

# --- time ----------------------------------------------------------------------
MAX_TTL_DAYS = 36_500  # ttl shorthand (about 100 years)
MAX_TTL_SECONDS = MAX_TTL_DAYS * 24 * 3600  # gRPC ttl_seconds
MAX_EXPIRY_HOURS = 876_000  # gRPC expires_in_hours
MAX_SINCE_DAYS = 36_500  # relative `since` ("2d", "8 hours ago")
MIN_YEAR = 1000  # timestamps a caller sends render with a 4-digit year
MAX_YEAR = 9999
MAX_STATS_DAYS = 3650  # `brainkeep protocol stats --days`
