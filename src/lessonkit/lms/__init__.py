"""Handing the course to an LMS: a SCORM 2004 4th edition content package made from the built site.

`settings` (course.yaml's `scorm:` key), `limits` (the standard's limits, shared with the page's reporter),
`text` (plain text of rendered markup), `report` (what a lesson page tells its reporter: the interactions its
blocks make), `manifest` (imsmanifest.xml), `check` (the package's structure, before anything is written) and
`pack` (the deterministic zip). The page side is static/js/lms/.
"""
