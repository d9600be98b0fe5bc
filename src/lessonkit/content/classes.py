"""course.yaml's `class:` key: the Learning Record Store a class's answers go to (the manual's "Teach a class").

    class:
      lrs: https://lrs.example.org/xAPI/   # the LRS's xAPI endpoint (its statements resource is <lrs>statements)

With it, a learner who opens the class's join link (`lessonkit class new` makes it) can send their answers there as
xAPI statements; without a join link nothing is sent. The endpoint is the course's, never the link's: a link can
only say which class, never where the answers go. The site's Content-Security-Policy allows the endpoint's origin
in connect-src and nothing else.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from lessonkit.content.schema import Fields, Key, Text

LRS_EXAMPLE = '"lrs: https://lrs.example.org/xAPI/"'
SCHEMA = Fields({
    "lrs": Key(Text(pattern=r"https?://[^\s/?#]+(/[^\s?#]*)?", what="an http(s) URL", example=LRS_EXAMPLE),
               required=True, hint=f"with the record store's xAPI endpoint, e.g. {LRS_EXAMPLE}",
               doc="the xAPI endpoint of the Learning Record Store the class's answers go to"),
}, example="{lrs: https://lrs.example.org/xAPI/}")


def settings(data: Any) -> dict[str, str] | None:
    """The checked `class:` mapping as {"lrs": endpoint ending in "/", "origin": scheme://host[:port]}; None without
    one."""
    if data is None:
        return None
    lrs = str(data["lrs"])
    lrs = lrs if lrs.endswith("/") else lrs + "/"
    parts = urlsplit(lrs)
    return {"lrs": lrs, "origin": f"{parts.scheme}://{parts.netloc}"}
