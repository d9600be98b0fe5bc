"""A class: learners who send their answers to the course's Learning Record Store (course.yaml's `class: lrs:`), and
the instructor who reads them (`lessonkit class new` and `lessonkit class show`).

Who holds which credential:
  - the learners' key (`<id>-learners`, scope statements/write) is in the join link's #fragment (browsers never send
    a fragment to the site's server) and in each member's browser: it can store statements and read none, not even
    its own;
  - the instructor's key (`<id>-instructor`, scope statements/read) is printed once by `lessonkit class new` and
    typed into `lessonkit class show`: it is never written into the course, the site or the link;
  - the LRS's administrator registers both (for Ralph: the two `ralph auth` commands `class new` prints, both keys
    bound to the class's own target, so neither reaches another class's statements) and can delete the class's
    statements; the class's id is the statements' context.registration.
The statements are the page's (static/js/class/statements.js); the tally is what the instructor's view shows, and
reads a cmi5 launch's statements too (static/js/lms/cmi5-statements.js: the same answers, and the lesson's verdicts
about its AU).
"""

from __future__ import annotations

import base64
import json
import secrets
import urllib.parse
import urllib.request
import uuid
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

VERB = "http://adlnet.gov/expapi/verbs/"
FIRST = "urn:lessonkit:xapi:first-response"
CMI5 = "https://w3id.org/xapi/cmi5/context/categories/cmi5"  # a cmi5 defined statement's category
LESSON_PREFIX = "urn:lessonkit:"
XAPI_VERSION = "1.0.3"
PAGE_LIMIT = 100  # statements per request (Ralph's default maximum of search hits)


@dataclass(frozen=True)
class NewClass:
    """A class's id, name, its two credentials and the learners' join code."""

    id: str
    name: str
    learner_user: str
    learner_password: str
    instructor_user: str
    instructor_password: str

    @property
    def learner_key(self) -> str:
        return f"{self.learner_user}:{self.learner_password}"

    @property
    def instructor_key(self) -> str:
        return f"{self.instructor_user}:{self.instructor_password}"

    @property
    def code(self) -> str:
        """The join code: base64url of {v, id, name, key}, the key the learners' (write-only) one."""
        data = json.dumps({"v": 1, "id": self.id, "name": self.name, "key": self.learner_key}, separators=(",", ":"),
                          ensure_ascii=False)
        return base64.urlsafe_b64encode(data.encode()).decode().rstrip("=")

    def link(self, site: str) -> str:
        """The join link: the site's course index with the code in its fragment."""
        return urllib.parse.urljoin(site if site.endswith("/") else site + "/", "index.html") + f"#class={self.code}"

    @property
    def target(self) -> str:
        """Where a Ralph LRS keeps the class's statements, apart from every other class's: both keys' `target` (a
        folder of its file-system store, a collection of MongoDB, an index of Elasticsearch)."""
        return self.learner_user.removesuffix("-learners")

    def ralph_commands(self, lrs: str) -> list[list[str]]:
        """The `ralph auth` commands that register both credentials with a Ralph LRS (its auth file), both bound to
        the class's own target: the read key reads this class's statements alone, the write key writes there alone."""
        return [["ralph", "auth", "-u", self.learner_user, "-p", self.learner_password, "-s", "statements/write",
                 "-t", self.target, "-A", f"{self.id}-learners", lrs, "-w"],
                ["ralph", "auth", "-u", self.instructor_user, "-p", self.instructor_password, "-s", "statements/read",
                 "-t", self.target, "-A", f"{self.id}-instructor", lrs, "-w"]]


def new_class(name: str) -> NewClass:
    """A new class of random id and credentials."""
    short = secrets.token_hex(4)
    return NewClass(str(uuid.uuid4()), name, f"class-{short}-learners", secrets.token_urlsafe(18),
                    f"class-{short}-instructor", secrets.token_urlsafe(18))


class LRSError(Exception):
    """The LRS refused or did not answer (its words)."""


def read_statements(lrs: str, registration: str, key: str, *, timeout: float = 10) -> list[dict[str, Any]]:
    """Every statement of the class (context.registration), following the LRS's `more` links."""
    auth = "Basic " + base64.b64encode(key.encode()).decode()
    url = f"{lrs}statements?" + urllib.parse.urlencode({"registration": registration, "limit": PAGE_LIMIT})
    found: list[dict[str, Any]] = []
    while url:
        if not url.startswith(("http://", "https://")):
            raise LRSError(f"the record store's address {url} is not http(s)")
        request = urllib.request.Request(url, headers={"Authorization": auth, "X-Experience-API-Version": XAPI_VERSION})  # noqa: S310
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310 — http(s), checked above
                body = json.loads(response.read())
        except urllib.error.HTTPError as exc:
            words = {401: "the read key is not one the record store knows (or it cannot read)",
                     403: "the read key may not read statements"}.get(exc.code, exc.reason)
            raise LRSError(f"the record store at {lrs} answered {exc.code}: {words}") from None
        except (urllib.error.URLError, OSError, ValueError) as exc:
            raise LRSError(f"the record store at {lrs} did not answer: {exc}") from None
        found += body.get("statements", [])
        more = body.get("more") or ""
        url = urllib.parse.urljoin(lrs, more) if more else ""
    return found


@dataclass
class Question:
    """One question's tally: the first option each learner checked, and who has answered; its options' text by
    their id (the statements' `choices`)."""

    id: str
    name: str
    correct: str
    choices: dict[str, str] = field(default_factory=dict)
    first: Counter[str] = field(default_factory=Counter)
    answered: int = 0


@dataclass
class Exercise:
    id: str
    name: str
    attempted: int = 0
    passed: int = 0


@dataclass
class Tally:
    """What the instructor's view shows: the learners, each question's first attempts, each exercise's passes."""

    learners: set[str] = field(default_factory=set)
    questions: dict[str, Question] = field(default_factory=dict)
    exercises: dict[str, Exercise] = field(default_factory=dict)
    lessons: dict[str, Counter[str]] = field(default_factory=dict)  # lesson id → learners passed/failed/completed


def _who(statement: dict[str, Any]) -> str:
    actor = statement.get("actor") or {}
    account = actor.get("account") or {}
    return f"{account.get('homePage', '')}|{account.get('name', '')}" if account else json.dumps(actor, sort_keys=True)


def _text(names: Any, default: str = "") -> str:
    """An xAPI language map's text (its first language's)."""
    return str(next(iter(names.values()), default)) if isinstance(names, dict) and names else default


def _name(obj: dict[str, Any]) -> str:
    return _text((obj.get("definition") or {}).get("name"), str(obj.get("id", "")))


def _choices(definition: dict[str, Any]) -> dict[str, str]:
    """A choice interaction's options: their text by id."""
    found = definition.get("choices")
    return {str(c["id"]): _text(c.get("description")) for c in found if isinstance(c, dict) and "id" in c} \
        if isinstance(found, list) else {}


def _lesson(statement: dict[str, Any], oid: str) -> str:
    """The lesson a lesson's statement is about: its object, or for a cmi5 defined statement (its object the AU, an
    id the LMS made) the lesson's own id, the AU's publisher id in the context's grouping."""
    activities = (statement.get("context") or {}).get("contextActivities") or {}
    if not any(isinstance(a, dict) and a.get("id") == CMI5 for a in activities.get("category") or []):
        return oid
    return next((a["id"] for a in activities.get("grouping") or []
                 if isinstance(a, dict) and str(a.get("id", "")).startswith(LESSON_PREFIX)), oid)


def tally(statements: Iterable[dict[str, Any]]) -> Tally:
    """The class's tally from its statements: per question the first checked option of each learner (their latest
    statement says it) and how many answered; per exercise how many attempted and passed; per lesson how many learners
    it stands passed and failed for (each learner's latest of the two: a later answer can turn it) and completed."""
    out = Tally()
    latest: dict[tuple[str, str], dict[str, Any]] = {}
    checked: dict[str, dict[str, bool]] = defaultdict(dict)
    success: dict[str, dict[str, str]] = defaultdict(dict)  # lesson → learner → their latest passed or failed
    completed: dict[str, set[str]] = defaultdict(set)
    for st in sorted(statements, key=lambda s: str(s.get("timestamp", ""))):
        who = _who(st)
        out.learners.add(who)
        verb = str((st.get("verb") or {}).get("id", "")).removeprefix(VERB)
        obj = st.get("object") or {}
        oid = str(obj.get("id", ""))
        definition = obj.get("definition") or {}
        if verb == "answered":
            latest[(oid, who)] = st
            if oid not in out.questions:
                correct = (definition.get("correctResponsesPattern") or [""])[0]
                out.questions[oid] = Question(oid, _name(obj), str(correct), _choices(definition))
        elif verb in ("attempted", "passed") and definition.get("type", "").endswith("cmi.interaction"):
            out.exercises.setdefault(oid, Exercise(oid, _name(obj)))
            checked[oid][who] = checked[oid].get(who, False) or verb == "passed"
        elif verb in ("passed", "failed"):
            success[_lesson(st, oid)][who] = verb
        elif verb == "completed":
            completed[_lesson(st, oid)].add(who)
    for (oid, _), st in latest.items():
        q = out.questions[oid]
        q.answered += 1
        first = ((st.get("result") or {}).get("extensions") or {}).get(FIRST)
        if first is not None:
            q.first[str(first)] += 1
    for oid, by in checked.items():
        out.exercises[oid].attempted = len(by)
        out.exercises[oid].passed = sum(by.values())
    for oid in success.keys() | completed.keys():
        out.lessons[oid] = Counter(success[oid].values()) + Counter({"completed": len(completed[oid])})
    return out


def _option_order(option: str) -> tuple[int, str]:
    return (int(option), "") if option.isdigit() else (1 << 30, option)


def tally_lines(t: Tally, name: str) -> list[str]:
    """The tally as the instructor reads it: per question how many answered, then each option (its text, ✓ the
    right one) with how many checked it first."""
    n = len(t.learners)
    lines = [f"Class “{name}”: {n} learner{'s' if n != 1 else ''} sent answers"]
    for q in sorted(t.questions.values(), key=lambda q: q.id):
        lines.append(f"{q.name}")
        lines.append(f"  {q.answered} answered · first attempts:")
        options = sorted(set(q.choices) | set(q.first), key=_option_order)
        for opt in options:
            text = f" “{q.choices[opt]}”" if q.choices.get(opt) else ""
            lines.append(f"    option {opt}{text}{' ✓' if opt == q.correct else ''}: {q.first[opt]}")
        if not options:
            lines.append("    none said")
    for e in sorted(t.exercises.values(), key=lambda e: e.id):
        lines.append(f"{e.name}")
        lines.append(f"  {e.passed} passed of {e.attempted} who checked it")
    for lesson, verbs in sorted(t.lessons.items()):
        words = ", ".join(f"{verbs[v]} {v}" for v in ("passed", "failed", "completed") if verbs[v])
        lines.append(f"Lesson {lesson.rsplit(':', 1)[-1]}: {words}")
    return lines
