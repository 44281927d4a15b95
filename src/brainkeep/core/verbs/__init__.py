"""MEMORY_VERBS v1: the seven verbs as domain functions returning wire envelopes."""
