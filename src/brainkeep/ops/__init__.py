"""The operation catalog: every operation declared once, dispatched for every transport."""
