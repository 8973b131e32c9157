"""memdesk core: the memory store, its services and maintenance logic.

Nothing in this package may import Qt; the UI layer calls these services.
"""

__version__ = "0.1.0"
