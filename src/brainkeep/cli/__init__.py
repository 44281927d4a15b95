"""The `brainkeep` command line: thin commands over the domain services."""
