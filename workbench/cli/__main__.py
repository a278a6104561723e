"""``python -m workbench.cli``: the same program as ``dp-workbench``."""

import sys

from workbench.cli.main import main

sys.exit(main())
