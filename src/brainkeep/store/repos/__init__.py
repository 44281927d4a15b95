"""The repository protocols the Store protocol is made of (store/base.py composes them)."""
