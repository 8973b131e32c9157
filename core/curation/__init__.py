"""Curation: what an operator does to improve a store — revaluation sweeps of the
low-importance band and resolving contradictions between memories."""
