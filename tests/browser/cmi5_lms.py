"""The cmi5 tests' LMS: what an LMS does around a cmi5 package, on 127.0.0.1, with a real LRS (Ralph) behind it.

Two origins, as an LMS often has: the content's (`content`: the unpacked package under /pkg/, the launch links under
/launch/<slug>, the page a learner returns to) and the LMS's xAPI endpoint (`endpoint`: its fetch URLs, its State
API, its statements resource, answering CORS for the content's origin). A launch does what the cmi5 spec asks of an
LMS: a registration per learner, an activity id of its own for the AU (never the publisher id), a session id, the
LMS.LaunchData state document (contextTemplate with the session id and the publisher id's grouping, launchMode,
masteryScore and moveOn from cmi5.xml, returnURL), a "launched" statement, a one-time fetch URL, then the AU's URL
with the five launch parameters (a redirect: the learner's window becomes the AU's). Statements the AU sends with
its session's token are forwarded to Ralph with the LMS's own key, so they land in a real LRS; the State API is the
LMS's own (Ralph has none).
"""

from __future__ import annotations

import base64
import http.server
import json
import secrets
import threading
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote, unquote, urlencode, urlsplit
from xml.etree import ElementTree

from .scorm_lms import TYPES, _read

NS = "{https://w3id.org/xapi/profiles/cmi5/v1/CourseStructure.xsd}"
VERBS = "http://adlnet.gov/expapi/verbs/"
CMI5 = "https://w3id.org/xapi/cmi5/context/"


@dataclass
class Session:
    """One launch: its learner, registration, AU and session id, its token once fetched, and whether it ended."""

    actor: dict[str, Any]
    registration: str
    activity_id: str
    session_id: str
    token: str = ""
    fetched: int = 0  # POSTs to its fetch URL


@dataclass
class LMS:
    """The test LMS (see the module's doc). `posted`: every statement the AU sent, in the order they came."""

    folder: Path
    ralph: str  # Ralph's xAPI endpoint
    ralph_key: str  # the LMS's own key with Ralph
    content: str = ""
    endpoint: str = ""
    sessions: dict[str, Session] = field(default_factory=dict)  # fetch key → session
    registrations: dict[str, str] = field(default_factory=dict)  # learner → registration
    state: dict[tuple[str, str, str, str], bytes] = field(default_factory=dict)
    posted: list[dict[str, Any]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def aus(self) -> dict[str, dict[str, str | None]]:
        """cmi5.xml's AUs by their launch url: id, moveOn, masteryScore."""
        root = ElementTree.parse(self.folder / "cmi5.xml").getroot()
        return {unquote(str(au.findtext(f"{NS}url"))): {"id": au.get("id"), "moveOn": au.get("moveOn"),
                                                        "masteryScore": au.get("masteryScore")}
                for au in root.iter(f"{NS}au")}

    def launch(self, url: str, learner: str, mode: str = "Normal") -> str:
        """Launch the AU at `url` for `learner`: its launch URL (see the module's doc)."""
        au = self.aus()[url]
        actor = {"objectType": "Agent", "name": f"Learner {learner}", "account": {"homePage": self.content, "name": learner}}
        with self.lock:
            registration = self.registrations.setdefault(learner, str(uuid.uuid4()))
        activity_id = f"{self.endpoint}activities/{quote(url)}"  # the LMS's own id for the AU
        session = Session(actor, registration, activity_id, str(uuid.uuid4()))
        template = {"extensions": {f"{CMI5}extensions/sessionid": session.session_id},
                    "contextActivities": {"grouping": [{"objectType": "Activity", "id": au["id"]}]}}
        data: dict[str, Any] = {"contextTemplate": template, "launchMode": mode, "moveOn": au["moveOn"],
                                "returnURL": f"{self.content}/returned?learner={learner}"}
        if au["masteryScore"] is not None:
            data["masteryScore"] = float(au["masteryScore"])
        self.put_state(activity_id, actor, registration, "LMS.LaunchData", json.dumps(data).encode())
        extensions = {f"{CMI5}extensions/{k}": v for k, v in (("launchmode", mode), ("moveon", au["moveOn"]),
                                                                ("launchurl", f"{self.content}/pkg/{url}"))}
        launched = {"id": str(uuid.uuid4()), "actor": actor, "verb": {"id": f"{VERBS}launched"},
                    "object": {"objectType": "Activity", "id": activity_id},
                    "context": {**template, "registration": registration, "extensions": {**template["extensions"], **extensions},
                                "contextActivities": {**template["contextActivities"],
                                                      "category": [{"id": f"{CMI5}categories/cmi5"}]}},
                    "timestamp": datetime.now(UTC).isoformat()}
        status, body = self.to_ralph([launched])
        assert status == 200, body
        key = secrets.token_urlsafe(12)
        with self.lock:
            self.sessions[key] = session
        query = urlencode({"endpoint": self.endpoint, "fetch": f"{self.endpoint}fetch/{key}", "actor": json.dumps(actor),
                           "registration": registration, "activityId": activity_id})
        return f"{self.content}/pkg/{url}?{query}"

    def put_state(self, activity: str, actor: dict[str, Any], registration: str, state_id: str, body: bytes) -> None:
        with self.lock:
            self.state[(activity, json.dumps(actor, sort_keys=True), registration, state_id)] = body

    def get_state(self, activity: str, actor: dict[str, Any], registration: str, state_id: str) -> bytes | None:
        with self.lock:
            return self.state.get((activity, json.dumps(actor, sort_keys=True), registration, state_id))

    def to_ralph(self, statements: list[dict[str, Any]]) -> tuple[int, bytes]:
        request = urllib.request.Request(f"{self.ralph}statements", data=json.dumps(statements).encode(), method="POST",
                                         headers=self._ralph_headers() | {"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=20) as response:
                return int(response.status), response.read()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read()

    def statements(self, registration: str) -> list[dict[str, Any]]:
        """Every statement Ralph holds of `registration`, oldest first (by timestamp)."""
        url = f"{self.ralph}statements?" + urlencode({"registration": registration, "limit": 500})
        with urllib.request.urlopen(urllib.request.Request(url, headers=self._ralph_headers()), timeout=20) as response:
            found = json.loads(response.read())["statements"]
        return sorted(found, key=lambda s: s["timestamp"])

    def _ralph_headers(self) -> dict[str, str]:
        return {"Authorization": "Basic " + base64.b64encode(self.ralph_key.encode()).decode(),
                "X-Experience-API-Version": "1.0.3"}

    def session_of(self, authorization: str | None) -> Session | None:
        with self.lock:
            return next((s for s in self.sessions.values() if s.token and authorization == f"Basic {s.token}"), None)


def _handler(lms: LMS) -> type[http.server.BaseHTTPRequestHandler]:
    class Handler(http.server.BaseHTTPRequestHandler):
        def reply(self, status: int, body: bytes = b"", kind: str = "application/json", **headers: str) -> None:
            self.send_response(status)
            if self.server.server_address[1] == urlsplit(lms.endpoint).port:  # type: ignore[attr-defined]
                self.send_header("Access-Control-Allow-Origin", lms.content)
                self.send_header("Access-Control-Allow-Methods", "GET, POST, PUT")
                self.send_header("Access-Control-Allow-Headers", "Authorization, Content-Type, X-Experience-API-Version")
                self.send_header("Access-Control-Max-Age", "600")
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            try:
                self.wfile.write(body)
            except (BrokenPipeError, ConnectionResetError):
                pass

        def do_OPTIONS(self) -> None:
            self.reply(204)

        def do_GET(self) -> None:
            parts = urlsplit(self.path)
            path, query = unquote(parts.path), parse_qs(parts.query)
            if path.startswith("/pkg/"):
                body, kind = _read(lms.folder, path[len("/pkg/"):], TYPES)
                return self.reply(200, body, kind) if body is not None else self.reply(404, b"not found", "text/plain")
            if path.startswith("/launch/"):
                return self.reply(302, b"", "text/plain", Location=lms.launch(path[len("/launch/"):],
                                                                              query["learner"][0],
                                                                              query.get("mode", ["Normal"])[0]))
            if path == "/returned":
                return self.reply(200, b"<!doctype html><title>The LMS</title><h1>Back in the LMS</h1>",
                                  "text/html; charset=utf-8")
            if path == "/xapi/activities/state":
                return self.state(query, None)
            return self.reply(404, b"{}")

        def do_PUT(self) -> None:
            parts = urlsplit(self.path)
            if unquote(parts.path) == "/xapi/activities/state":
                return self.state(parse_qs(parts.query), self.rfile.read(int(self.headers.get("Content-Length", 0))))
            return self.reply(404, b"{}")

        def do_POST(self) -> None:
            path = unquote(urlsplit(self.path).path)
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            if path.startswith("/xapi/fetch/"):
                with lms.lock:
                    session = lms.sessions.get(path[len("/xapi/fetch/"):])
                    if session is not None:
                        session.fetched += 1
                if session is None:
                    return self.reply(200, json.dumps({"error-code": "2", "error-text": "No such launch."}).encode())
                if session.fetched > 1:
                    return self.reply(200, json.dumps({"error-code": "1", "error-text": "The authorization token "
                                                       "has already been returned."}).encode())
                session.token = base64.b64encode(f"session:{secrets.token_urlsafe(12)}".encode()).decode()
                return self.reply(200, json.dumps({"auth-token": session.token}).encode())
            if path == "/xapi/statements":
                if lms.session_of(self.headers.get("Authorization")) is None:
                    return self.reply(401, b'{"error": "no such token"}')
                statements = json.loads(body)
                with lms.lock:
                    lms.posted.extend(statements if isinstance(statements, list) else [statements])
                status, answer = lms.to_ralph(statements)
                return self.reply(status, answer)
            return self.reply(404, b"{}")

        def state(self, query: dict[str, list[str]], body: bytes | None) -> None:
            session = lms.session_of(self.headers.get("Authorization"))
            if session is None:
                return self.reply(401, b'{"error": "no such token"}')
            activity, agent, registration, state_id = (query.get(k, [""])[0] for k in
                                                       ("activityId", "agent", "registration", "stateId"))
            actor = json.loads(agent or "{}")
            if (activity, actor, registration) != (session.activity_id, session.actor, session.registration):
                return self.reply(403, b'{"error": "another learner\'s or activity\'s state"}')
            if body is None:
                found = lms.get_state(activity, actor, registration, state_id)
                return self.reply(200, found) if found is not None else self.reply(404, b"{}")
            if state_id == "LMS.LaunchData":
                return self.reply(403, b'{"error": "LMS.LaunchData is the LMS\'s"}')
            lms.put_state(activity, actor, registration, state_id, body)
            return self.reply(204)

        def log_message(self, format: str, *args: object) -> None:
            pass

    return Handler


@contextmanager
def running_lms(ralph: str, ralph_key: str) -> Iterator[LMS]:
    """The two origins of the test LMS, listening on 127.0.0.1 (its package folder set by the caller, which packs the
    course once the endpoint's origin is known)."""
    lms = LMS(Path(), ralph, ralph_key)
    handler = _handler(lms)
    servers = [http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler) for _ in range(2)]
    for server in servers:
        threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.2}, daemon=True).start()
    lms.content = f"http://127.0.0.1:{servers[0].server_address[1]}"
    lms.endpoint = f"http://127.0.0.1:{servers[1].server_address[1]}/xapi/"
    try:
        yield lms
    finally:
        for server in servers:
            server.shutdown()
            server.server_close()
