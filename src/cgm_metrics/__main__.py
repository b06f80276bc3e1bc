"""``python -m cgm_metrics`` runs the ``cgm`` command."""

import signal
import sys

# Ctrl-C while the command's own modules load (before ``cli.main`` handles it): exit 130
signal.signal(signal.SIGINT, lambda signum, frame: sys.exit(130))

from .cli import main  # noqa: E402

signal.signal(signal.SIGINT, signal.default_int_handler)

if __name__ == "__main__":
    sys.exit(main())
