"""``python -m legsim``: the same as the ``legsim`` command."""

import sys

from .cli import main

sys.exit(main())
