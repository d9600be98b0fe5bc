"""lessonkit: turn lesson markdown with quiz, lab and widget blocks into a static site."""
