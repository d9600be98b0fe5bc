"""Handing the course to an LMS: a SCORM 2004 4th edition content package made from the built site: `manifest`
(imsmanifest.xml), `check` (the package's structure, before anything is written) and `pack` (the deterministic zip).
What a lesson page reports to the LMS is lessonkit.lms's; the page side is static/js/lms/."""
