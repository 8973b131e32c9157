"""What every room of the desk shares: the action pipeline (``Desk``), background work, the
view contract and the sidebar's registry of views, plain-text display of untrusted text, and
the shared table pieces."""
