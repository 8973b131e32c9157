"""The command line: ``memdesk add|list|show|...`` (main.py builds the parser and runs a
command; one module per group of subcommands)."""
