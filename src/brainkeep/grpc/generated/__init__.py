"""Generated Mnemo gRPC stubs (python -m brainkeep.grpc.codegen)."""
