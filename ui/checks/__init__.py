"""Recall checks in the desk: the Checks view, "Pin as a check", and the checks run
after each bulk action."""
