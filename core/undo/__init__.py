"""The one generic undo across every audit stream (generic.py), on the action registry's
public face that binds each stream's undo handler (registry.py)."""
