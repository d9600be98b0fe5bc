"""The layer every other part of lessonkit stands on: an author's problems (errors), writing and linking files
(files), and where the package's own data and the caches live (places). It imports nothing else of lessonkit."""
