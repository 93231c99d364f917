"""``python -m evolve.cli``: the ``evolve`` command."""

import sys

from evolve.cli import main

sys.exit(main())
