"""The quarantine: writes the injection scorer held, and the operator's review of them.

``holds.py`` records a held write (called by the two write paths:
``core/memory/writes.insert`` and ``core/pages.PageService.put_page``);
``review.py`` lists, shows, releases and rejects them (the CLI's
``brainkeep quarantine`` and the console's review page). docs/security.md
describes the whole flow.
"""
