"""The build's pipeline: load → validate → render → write, in parallel for a large course, written atomically."""
