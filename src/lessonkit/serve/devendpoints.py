"""The dev server's own addresses (/__lessonkit/, `lessonkit serve` only): the live-reload script every page it sends
gets, and the build's state open pages long-poll (lessonkit.serve.events). Never part of a built site."""

from __future__ import annotations

import json
from dataclasses import dataclass
from http import HTTPStatus
from pathlib import Path
from urllib.parse import parse_qs

from lessonkit.core.places import STATIC
from lessonkit.serve.events import DevState

DEV_PREFIX = "/__lessonkit/"
DEV_SCRIPT_URL = DEV_PREFIX + "dev-reload.js"
EVENTS_URL = DEV_PREFIX + "events"
DEFAULT_DEV_SCRIPT = STATIC / "js" / "page" / "dev-reload.js"


@dataclass(frozen=True)
class DevReply:
    """A dev endpoint's answer: sent no-store with the headers of `headers_of` (a site path), or, when `simple`, as
    a plain-text error."""

    status: int
    body: bytes
    headers_of: str = "error.txt"
    simple: bool = False


def dev_reply(dev: DevState, path: str, query: str, dev_script: Path) -> DevReply | None:
    """The answer to a GET of `path` under DEV_PREFIX, or None where there is nothing (a 404). Waits, for a page
    that knows the build's seq, until the state changes or the long-poll ends."""
    if path == DEV_SCRIPT_URL:
        return DevReply(HTTPStatus.OK, dev_script.read_bytes(), "dev-reload.js")
    if path == EVENTS_URL:
        params = parse_qs(query)
        try:
            epoch = int(params["epoch"][0]) if "epoch" in params else None
            seq = int(params["seq"][0]) if "seq" in params else None
        except ValueError:
            return DevReply(HTTPStatus.BAD_REQUEST, b"epoch and seq must be integers\n", simple=True)
        # A page that does not know the seq yet gets the current state at once (it may have problems).
        state = dev.snapshot() if seq is None else dev.wait(epoch, seq)
        return DevReply(HTTPStatus.OK, json.dumps(state).encode(), "events.json")
    return None


def no_store(headers: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Replace Cache-Control with no-store (dev endpoints change on every build)."""
    return [(n, "no-store" if n == "Cache-Control" else v) for n, v in headers]


def inject_dev_script(body: bytes, epoch: int) -> bytes:
    """Insert the live-reload module before </body> (dev responses only, never written to site files)."""
    tag = f'<script type="module" src="{DEV_SCRIPT_URL}?epoch={epoch}"></script>\n'.encode()
    at = body.lower().rfind(b"</body>")
    if at < 0:
        return body + tag
    return body[:at] + tag + body[at:]
