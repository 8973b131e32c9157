"""The retrieval inspector: what an agent would recall, and why."""
