"""Delta memory (seed 004): weighted memory sets, diffs, attribution, health, governance."""
