"""`python -m lessonkit.runtime {update-manifest|check|prepare|boot-check}`."""

from lessonkit.runtime.vendor import main

raise SystemExit(main())
