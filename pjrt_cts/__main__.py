"""`python -m pjrt_cts` is `pjrt-cts`."""
import sys

from pjrt_cts.cli.main import main

sys.exit(main())
