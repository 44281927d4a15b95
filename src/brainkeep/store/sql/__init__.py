"""Repositories written once for both engines, over a ``Dialect`` (``dialect.py``).

Each module here is one repository's implementation (a mixin of the engine's
store class) that runs its statements through ``self.sql`` (``SQL``: the
engine's driver plus its dialect). The engine packages, ``store/sqlite/`` and
``store/postgres/``, keep only what truly differs: connections and
transactions, the keyword and vector indexes, grep, and migrations.

Keyword-index upkeep hooks (the engine's store class provides them; a
repository here only annotates them, so it never shadows the engine's):

- ``PageKeywordUpkeep`` (``pages.py``): ``_fts_page_added(page_id, title,
  aliases)`` after a page's chunks are written, ``_fts_page_removed(page_id)``
  before they are deleted or when the page is soft-deleted. SQLite fills and
  empties ``pages_fts``/``chunks_fts`` (``store/sqlite/page_fts.py``);
  PostgreSQL's generated ``tsv`` columns need nothing
  (``store/postgres/page_fts.py``, no-ops).
"""
