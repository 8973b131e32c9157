"""File → Import… and File → Export…."""
