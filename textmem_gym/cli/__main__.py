"""``python -m textmem_gym.cli``."""

import sys

from textmem_gym.cli import main

sys.exit(main())
