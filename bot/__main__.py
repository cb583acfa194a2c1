"""``python -m bot`` runs the ``veilbot`` command line."""

import sys

from bot.cli.main import main

sys.exit(main())
