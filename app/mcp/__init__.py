"""``memdesk mcp``: the Model Context Protocol server agents reach the store through
(server.py), its runtime, tools, models and transports."""
