"""`python -m chronozarr.demo OUTDIR [--small]` (the Makefile's `make demo`)."""

import sys

from .command import main

sys.exit(main())
