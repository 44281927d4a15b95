"""Domain values and services. Imports no front end (click, mcp, grpc) and no SQL."""
