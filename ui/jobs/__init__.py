"""The extraction jobs: the Jobs view and the write path's worker thread."""
