"""What authors write: lesson files, course.yaml, block YAML with its lines, the schema, sources, media, bounds."""
