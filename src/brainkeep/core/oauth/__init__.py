"""OAuth 2.1 for remote MCP callers: clients, grants and the rules that bind them."""
