"""Shared test helpers.  Test files import from here (or use conftest fixtures), never
from another test file."""
