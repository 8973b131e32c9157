"""Delta memory: drift review, snapshots, diffs, sources, the dominance plot."""
