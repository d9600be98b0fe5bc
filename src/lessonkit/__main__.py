"""`python -m lessonkit`: the `lessonkit` command."""

import sys

from lessonkit.cli import main

sys.exit(main())
