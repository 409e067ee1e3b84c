"""``python -m device_types``: the console command."""

import sys

from device_types._cli import main

sys.exit(main())
