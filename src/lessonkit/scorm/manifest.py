"""imsmanifest.xml: the SCORM 2004 4th edition content package's manifest, made from the course.

One organization (titled as the course) with one item per lesson, in course order, titled as the lesson; each item
launches its lesson's page, a SCO (`res-<slug>`), which depends on the shared asset resource (`res-site`: every
other file of the site, the runtime, wheels and search index included). The course index is an asset resource of
its own (`res-index`, launching index.html), which the lessons link to; it is no item, so an LMS does not launch it
as an activity. The SCO resources come first: an LMS that launches "the first resource with an href" (Open edX's
block) launches the first lesson.

Per item: `adlcp:completionThreshold` (completion from cmi.progress_measure, when course.yaml's scorm.completion is
"all-blocks") and `imsss:sequencing` with the primary objective satisfied by measure at `minNormalizedMeasure`
(scorm.passing, which the LMS gives the SCO as cmi.scaled_passing_score), and delivery controls saying the SCO sets
its own completion and success. The organization allows flow (Previous/Next as navigation requests) and choice.
Launch hrefs carry no query string: some LMSs drop an item's parameters. Element order inside imsss:sequencing is
the schema's (controlMode, …, objectives, …, deliveryControls).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath
from urllib.parse import quote
from xml.sax.saxutils import escape, quoteattr

from lessonkit.lms import limits

SCHEMA_LOCATIONS = (
    ("http://www.imsglobal.org/xsd/imscp_v1p1", "imscp_v1p1.xsd"),
    ("http://www.adlnet.org/xsd/adlcp_v1p3", "adlcp_v1p3.xsd"),
    ("http://www.adlnet.org/xsd/adlseq_v1p3", "adlseq_v1p3.xsd"),
    ("http://www.adlnet.org/xsd/adlnav_v1p3", "adlnav_v1p3.xsd"),
    ("http://www.imsglobal.org/xsd/imsss", "imsss_v1p0.xsd"),
)
SHARED = "res-site"
INDEX = "res-index"


@dataclass(frozen=True)
class Lesson:
    """One lesson as the manifest names it."""

    slug: str
    title: str
    href: str  # its page, relative to the package root

    @property
    def item(self) -> str:
        return f"{limits.ITEM_PREFIX}{self.slug}"

    @property
    def resource(self) -> str:
        return f"res-{self.slug}"


@dataclass(frozen=True)
class Course:
    """What the manifest says of the course."""

    id: str  # the manifest's identifier part: the course id (with the lesson's slug for a one-lesson package)
    title: str
    description: str  # plain text
    version: str
    passing: float
    completion: str  # "all-blocks" | "opened"
    language: str = "en"  # the course's BCP 47 tag: its title's, description's and the LOM's language


def href(path: str) -> str:
    """A package path as a manifest href: a relative URI with each segment percent-encoded (spaces, non-ASCII)."""
    return "/".join(quote(seg, safe="!$&'()*+,;=:@-._~") for seg in PurePosixPath(path).parts)


def _measure(x: float) -> str:
    return f"{x:.4f}".rstrip("0").rstrip(".") if x else "0"


def _item(lesson: Lesson, course: Course) -> str:
    threshold = ('\n        <adlcp:completionThreshold completedByMeasure="true" minProgressMeasure="1"/>'
                 if course.completion == "all-blocks" else "")
    return f"""      <item identifier={quoteattr(lesson.item)} identifierref={quoteattr(lesson.resource)} isvisible="true">
        <title>{escape(lesson.title)}</title>{threshold}
        <imsss:sequencing>
          <imsss:objectives>
            <imsss:primaryObjective objectiveID={quoteattr(f"{lesson.slug}-passed")} satisfiedByMeasure="true">
              <imsss:minNormalizedMeasure>{_measure(course.passing)}</imsss:minNormalizedMeasure>
            </imsss:primaryObjective>
          </imsss:objectives>
          <imsss:deliveryControls completionSetByContent="true" objectiveSetByContent="true"/>
        </imsss:sequencing>
      </item>"""


def _resource(identifier: str, kind: str, launch: str) -> str:
    """A resource that launches one page of the site and depends on the shared files."""
    return (f'    <resource identifier={quoteattr(identifier)} type="webcontent" adlcp:scormType="{kind}" '
            f"href={quoteattr(href(launch))}>\n"
            f"      <file href={quoteattr(href(launch))}/>\n"
            f'      <dependency identifierref="{SHARED}"/>\n'
            "    </resource>")


def _files(paths: Sequence[str]) -> str:
    return "\n".join(f"      <file href={quoteattr(href(p))}/>" for p in paths)


def manifest(course: Course, lessons: Sequence[Lesson], files: Sequence[str], index: str) -> str:
    """The manifest's text: `lessons` are the items (course order), `files` every file of the package but the
    manifest, `index` the course index's page."""
    launched = {les.href for les in lessons}
    shared = [f for f in files if f not in launched and f != index]
    resources = [_resource(les.resource, "sco", les.href) for les in lessons]
    resources.append(_resource(INDEX, "asset", index))
    resources.append(f"""    <resource identifier="{SHARED}" type="webcontent" adlcp:scormType="asset">
{_files(shared)}
    </resource>""")
    locations = " ".join(f"{ns} {xsd}" for ns, xsd in SCHEMA_LOCATIONS)
    items = "\n".join(_item(les, course) for les in lessons)
    resources_xml = "\n".join(resources)
    org = f"org-{course.id}"
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<manifest identifier={quoteattr(f"lessonkit-{course.id}")} version={quoteattr(course.version)}
  xmlns="http://www.imsglobal.org/xsd/imscp_v1p1"
  xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_v1p3"
  xmlns:adlseq="http://www.adlnet.org/xsd/adlseq_v1p3"
  xmlns:adlnav="http://www.adlnet.org/xsd/adlnav_v1p3"
  xmlns:imsss="http://www.imsglobal.org/xsd/imsss"
  xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
  xsi:schemaLocation={quoteattr(locations)}>
  <metadata>
    <schema>ADL SCORM</schema>
    <schemaversion>2004 4th Edition</schemaversion>
    <lom xmlns="http://ltsc.ieee.org/xsd/LOM">
      <general>
        <title><string language={quoteattr(course.language)}>{escape(course.title)}</string></title>
        <language>{escape(course.language)}</language>
        <description><string language={quoteattr(course.language)}>{escape(course.description)}</string></description>
      </general>
      <lifeCycle>
        <version><string language={quoteattr(course.language)}>{escape(course.version)}</string></version>
      </lifeCycle>
    </lom>
  </metadata>
  <organizations default={quoteattr(org)}>
    <organization identifier={quoteattr(org)}>
      <title>{escape(course.title)}</title>
{items}
      <imsss:sequencing>
        <imsss:controlMode choice="true" flow="true"/>
      </imsss:sequencing>
    </organization>
  </organizations>
  <resources>
{resources_xml}
  </resources>
</manifest>
"""
