"""The course's index page: its title, tagline and description, and every lesson in order with its summary."""

from __future__ import annotations

from typing import Any

import jinja2

from lessonkit.assets.scripts import INDEX_MODULE
from lessonkit.page.head import page_csp
from lessonkit.page.links import INDEX


def render_index(env: jinja2.Environment, site: dict[str, Any], manifest: dict[str, Any]) -> str:
    """The course's index page: its title, tagline and description, and every lesson in order with its summary."""
    course = site["course"]
    page_data = {"page": "index", "course": {"id": course["id"], "title": course["title"], "index": INDEX}}
    progress_module = f"{site['static']}/js/{INDEX_MODULE}"  # main.js imports it here: fetched beside it, checked
    return env.get_template("index.html").render(site=site, course=course, csp=page_csp(site["importmap"]),
                                                 lessons=site["lessons"], manifest=manifest, page_data=page_data,
                                                 progress_module=progress_module)
