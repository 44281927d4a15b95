"""Repositories written once for both engines, over a ``Dialect`` (``dialect.py``).

Each module here is one repository's implementation (a mixin of the engine's
store class) that runs its statements through ``self.sql`` (``SQL``: the
engine's driver plus its dialect). The engine packages, ``store/sqlite/`` and
``store/postgres/``, keep only what truly differs: connections and
transactions, the keyword and vector indexes, grep, and migrations.
"""
