"""brainkeep: a memory server for AI agents on one local brain."""

__version__ = "0.1.0"
