"""Browse: the memories table, its filters, the detail pane, the overview."""
