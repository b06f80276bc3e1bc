"""``python -m cgm_metrics`` runs the ``cgm`` command."""

import sys

from .frontends.cli import main

if __name__ == "__main__":
    sys.exit(main())
