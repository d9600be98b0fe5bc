"""SCORM 2004's limits and this site's formats, read from their one home, static/js/lms/scorm-limits.json (the page's
reporter imports the same file)."""

from __future__ import annotations

import json

from lessonkit.core.places import STATIC

FILE = STATIC / "js" / "lms" / "scorm-limits.json"
_LIMITS = json.loads(FILE.read_text(encoding="utf-8"))

SUSPEND_DATA: int = _LIMITS["suspendData"]  # characters of cmi.suspend_data
DESCRIPTION: int = _LIMITS["description"]  # characters of an interaction's description
TITLE: int = _LIMITS["title"]  # characters of an organization's or item's title in the manifest
INTERACTIONS: int = _LIMITS["interactions"]  # interactions per SCO
INTERACTION_PREFIX: str = _LIMITS["interactionPrefix"]  # interaction ids are <prefix>:<course>:<lesson>:<block>[:<n>]
SUSPEND_FORMAT: str = _LIMITS["suspendFormat"]
SUSPEND_VERSION: int = _LIMITS["suspendVersion"]
ITEM_PREFIX: str = _LIMITS["itemPrefix"]  # the manifest item of a lesson is <prefix><slug>; the page asks for it by that name
