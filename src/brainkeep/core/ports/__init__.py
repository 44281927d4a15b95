"""The domain's ports: the repository and SearchIndex protocols persistence must implement.

They live in the domain so dependencies point inward: core services name
these protocols, and the engines (``store/sqlite/``, ``store/postgres/``,
with ``store/sql/`` written once for both) implement them. ``store.py``
composes the repositories into the whole ``Store``; a service that needs
only pages or tokens may take just that repository.
"""
