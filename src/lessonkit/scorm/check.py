"""The package's structure, checked before anything is written: what SCORM 2004's content aggregation model asks of
a manifest beyond its XML schemas, and that the manifest and the zip agree.

    problems(members) -> ["imsmanifest.xml:<line>: what is wrong — how to fix it", ...]

`members` is the package: {path in the zip: bytes}, imsmanifest.xml included. The checks: the manifest is XML and
says it is SCORM 2004 4th edition; every identifier is unique; the organization and every item have one non-empty
title of at most limits.TITLE characters; a leaf item refers to a resource that exists and has an href; every
dependency refers to a resource that exists; every <file href> (percent-decoded) is in the zip and listed by one
resource only; every resource lists the file it launches; every file of the zip but the manifest and the schema
files beside it (CONTROL_FILES) is listed. The XML schemas themselves are checked by the tests
(tests/test_scorm_manifest.py, with the 4th edition's XSDs), which need lxml; the build needs only the standard
library.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import unquote
from xml.parsers import expat

from lessonkit.lms import limits, vendor

MANIFEST = "imsmanifest.xml"
# The schema files at the package's root, beside the manifest: no resource lists them (they are the package's, not
# content's).
CONTROL_FILES = frozenset(vendor.XSD_FILES)
CP = "http://www.imsglobal.org/xsd/imscp_v1p1"


@dataclass
class Node:
    """One element: its namespace and name, attributes (namespaced ones as "ns name"), line, children, text."""

    ns: str
    name: str
    attrs: dict[str, str]
    line: int
    children: list[Node] = field(default_factory=list)
    text: str = ""

    def all(self, name: str, ns: str = CP) -> list[Node]:
        """Every descendant element of this name, in document order."""
        found = []
        for child in self.children:
            if child.name == name and child.ns == ns:
                found.append(child)
            found += child.all(name, ns)
        return found

    def kids(self, name: str, ns: str = CP) -> list[Node]:
        return [c for c in self.children if c.name == name and c.ns == ns]


def parse(data: bytes) -> Node:
    """The manifest as Nodes (expat, no external entities); raises ValueError with the line of an XML error."""
    parser = expat.ParserCreate(namespace_separator=" ")
    stack: list[Node] = []
    root: list[Node] = []

    def start(tag: str, attrs: dict[str, str]) -> None:
        ns, _, name = tag.rpartition(" ")
        node = Node(ns, name, attrs, parser.CurrentLineNumber)
        (stack[-1].children if stack else root).append(node)
        stack.append(node)

    def end(tag: str) -> None:
        stack.pop()

    def text(data: str) -> None:
        if stack:
            stack[-1].text += data

    parser.StartElementHandler, parser.EndElementHandler, parser.CharacterDataHandler = start, end, text
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    try:
        parser.Parse(data, True)
    except expat.ExpatError as exc:
        raise ValueError(f"{MANIFEST}:{exc.lineno}: not well-formed XML ({expat.errors.messages[exc.code]})") from None
    return root[0]


def problems(members: dict[str, bytes]) -> list[str]:
    """Everything wrong with the package, each at its manifest line; empty when it is good."""
    if MANIFEST not in members:
        return [f"{MANIFEST}:1: the package has no manifest at its root — a SCORM package needs one"]
    try:
        doc = parse(members[MANIFEST])
    except ValueError as exc:
        return [str(exc)]
    out: list[str] = []

    def at(node: Node, message: str) -> None:
        out.append(f"{MANIFEST}:{node.line}: {message}")

    if (doc.ns, doc.name) != (CP, "manifest"):
        at(doc, "the root element is not an IMS content packaging <manifest> — use the imscp_v1p1 namespace")
        return out
    metadata = doc.kids("metadata")
    said = [" ".join(n.text.split()) for m in metadata for n in (*m.kids("schema"), *m.kids("schemaversion"))]
    if said != ["ADL SCORM", "2004 4th Edition"]:
        at(metadata[0] if metadata else doc, "<metadata> must say <schema>ADL SCORM</schema> and <schemaversion>2004 "
           "4th Edition</schemaversion> — LMSs read the version from them")
    seen: dict[str, int] = {}
    stack = [doc]
    while stack:
        node = stack.pop(0)
        ident = node.attrs.get("identifier")
        if ident is not None:
            if ident in seen:
                at(node, f'identifier "{ident}" is used twice (first at line {seen[ident]}) — identifiers are unique '
                   "in a manifest")
            seen.setdefault(ident, node.line)
        stack[:0] = node.children
    resources = {r.attrs.get("identifier"): r for r in doc.all("resource")}
    organizations = doc.all("organization")
    if not organizations:
        at(doc, "the manifest has no <organization> — a package of SCOs has one, with an item per SCO")
    for node in [*organizations, *doc.all("item")]:
        titles = node.kids("title")
        what = f'{node.name} "{node.attrs.get("identifier", "")}"'
        if len(titles) != 1 or not titles[0].text.strip():
            at(node, f"{what} needs exactly one non-empty <title> — the LMS shows it to learners")
        elif len(titles[0].text.strip()) > limits.TITLE:
            at(titles[0], f"the title of {what} has {len(titles[0].text.strip())} characters, more than the "
               f"{limits.TITLE} an LMS must keep — shorten it")
    for item in doc.all("item"):
        ref = item.attrs.get("identifierref")
        name = item.attrs.get("identifier", "")
        if ref is None:
            if not item.kids("item"):
                at(item, f'item "{name}" has neither child items nor an identifierref — a leaf item launches a resource')
        elif ref not in resources:
            at(item, f'item "{name}" refers to resource "{ref}", which the manifest does not have')
        elif "href" not in resources[ref].attrs:
            at(item, f'item "{name}" launches resource "{ref}", which has no href — give the resource its launch file')
    for dep in doc.all("dependency"):
        if dep.attrs.get("identifierref") not in resources:
            at(dep, f'a dependency refers to "{dep.attrs.get("identifierref")}", which the manifest does not have')
    listed: dict[str, int] = {}
    for resource in resources.values():
        own = set()
        for f in resource.kids("file"):
            path = unquote(f.attrs.get("href", ""))
            own.add(path)
            if path not in members:
                at(f, f'file "{f.attrs.get("href", "")}" is not in the package — add it, or list only files it has')
            if path in listed:
                at(f, f'file "{f.attrs.get("href", "")}" is listed by two resources (first at line {listed[path]}) — '
                   "list each file once")
            listed.setdefault(path, f.line)
        launch = resource.attrs.get("href")
        if launch is not None and unquote(launch.split("?")[0]) not in own:
            at(resource, f'resource "{resource.attrs.get("identifier")}" launches "{launch}" but does not list it as '
               "a <file>")
    unlisted = sorted(name for name in members if name != MANIFEST and name not in CONTROL_FILES and name not in listed)
    out += [f"{MANIFEST}:1: {name} is in the package but listed by no resource — list every file of the package"
            for name in unlisted]
    return out
