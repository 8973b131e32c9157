"""The agents' side of the desk: their MCP bearer tokens."""
