"""The Mnemo gRPC front end: server, servicer, proto and generated stubs."""
