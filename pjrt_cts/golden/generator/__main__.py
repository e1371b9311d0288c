import sys

from pjrt_cts.golden.generator import main

sys.exit(main())
