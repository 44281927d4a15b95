"""The Mnemo domain services: the gRPC API's semantics, transport-free.

``service.MnemoService`` (what ``Brain.mnemo`` holds) has one method per
Mnemo RPC, each a thin call into the module that owns the rule: remember,
recall (+ ranking), forget, sharing, delegation, checkpoints, consolidate,
trajectory, subject; Verify runs ``core/verify.py``, the verifier `brainkeep
verify` uses too. ``models`` holds the shared values and is imported by the
store layer, so this package imports nothing eagerly.
"""
