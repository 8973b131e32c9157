"""The duplicates queue: clusters, members, and merging them."""
