"""`python -m brainkeep`: the CLI (used to spawn our own server for self-certification)."""

from brainkeep.entry import main

if __name__ == "__main__":
    main()
