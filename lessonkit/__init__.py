"""lessonkit: turn lesson markdown with quiz, lab and widget blocks into a static site."""

from pathlib import Path

# The toolkit's own folder: lessonkit/, static/, templates/ and lab/labkit/ sit in it.
TOOLKIT = Path(__file__).resolve().parent.parent
