"""PyInstaller's entry point for the bundled app: the same ``memdesk`` command as the
console script (GUI without a subcommand, CLI with one)."""

import sys

from memdesk.app.main import main

if __name__ == "__main__":
    sys.exit(main())
