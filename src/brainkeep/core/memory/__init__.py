"""The one memory domain: MCP facts and Mnemo (gRPC) memories over one table.

Both protocols write the same rows through the same rules:

* ``writes`` is the only path that inserts or expires a memory row with its
  audit event, ``drafts`` validates MCP/CLI facts, ``grants`` answers grant
  questions for ``core/scope.py``'s rules, ``access`` decides who may do
  what to a memory addressed by id;
* ``group_commit.GroupCommit`` is the one write discipline: every memory
  write of either protocol runs as a job in it (``Brain`` owns the one
  instance), so concurrent writers share a transaction and its fsync and
  nobody is answered before their commit;
* ``facts.FactService`` is the verbs' side (remember, forget, list);
  ``mnemo.MnemoService`` (what ``Brain.mnemo`` holds) has one method per
  Mnemo RPC, each a thin call into the module that owns the rule: remember,
  recall (+ ranking), forget, sharing, delegation, revocation, checkpoints,
  consolidate, distill, orientation, trajectory, subject; Verify runs
  ``core/verify.py``, the verifier `brainkeep verify` uses too.

``models`` holds the shared values and is imported by the store layer, so
this package imports nothing eagerly.
"""
