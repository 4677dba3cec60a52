"""`gfh mcp`: gfh's verbs as tools of a Model Context Protocol server (docs/mcp.md)."""
