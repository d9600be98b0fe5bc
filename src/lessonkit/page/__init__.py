"""Rendering pages: a lesson's content and page (lesson, blocks), the index, the templates' loader, the head's import
map and policy, the sidebar and pager (nav, course), the course manifest, and the links between pages (links)."""
