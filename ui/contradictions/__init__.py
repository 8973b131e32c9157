"""The contradictions queue and its side-by-side cards."""
