"""The course's index page: its title, tagline and description, and every lesson in order with its summary."""

from __future__ import annotations

from typing import Any

import jinja2

from lessonkit.assets.scripts import INDEX_MODULE
from lessonkit.core import messages
from lessonkit.page.head import page_csp
from lessonkit.page.lesson import page_messages, with_chunks
from lessonkit.page.links import INDEX


def render_index(env: jinja2.Environment, site: dict[str, Any], manifest: dict[str, Any]) -> str:
    """The course's index page: its title, tagline and description, and every lesson in order with its summary."""
    course = site["course"]
    page_data = {"page": "index", "course": {"id": course["id"], "title": course["title"], "index": INDEX}}
    if site["block_modules"]:
        page_data["blockModules"] = site["block_modules"]  # their progress modules, for the course's progress
    if site["classroom"]:  # a class's join link opens the index
        page_data["class"] = {"lrs": site["classroom"]["lrs"]}
    # main.js imports the progress view here: fetched beside it (after the chunks it imports), checked
    progress_modules = [f"{site['static']}/js/{name}" for name in with_chunks([INDEX_MODULE], site["chunks"])]
    words = page_messages(site)
    with messages.using(words):
        return env.get_template("index.html").render(lang=words.page_info(), page_messages=words.page_catalog(),
                                                 site=site, course=course,
                                                 csp=page_csp(site["importmap"], site["connect"]),
                                                 lessons=site["lessons"], manifest=manifest,
                                                 parts=_parts(site), page_data=page_data,
                                                 progress_modules=progress_modules)


def _parts(site: dict[str, Any]) -> list[dict[str, Any]]:
    """The index's parts, each with its lessons' entries (the site's lesson data), in order."""
    by_slug = {les["slug"]: les for les in site["lessons"]}
    return [{**part, "lessons": [by_slug[s] for s in part["lessons"] if s in by_slug]} for part in site["parts"]]
