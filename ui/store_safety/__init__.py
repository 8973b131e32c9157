"""Store safety: opening a store, checks, backups, restores, upgrades and edit conflicts."""
