"""Rendering pages: lesson and index pages, markup and math, figures, links, the course manifest."""
