"""MCP servers written with the official SDK, for the tests (run as subprocesses or in a thread)."""
