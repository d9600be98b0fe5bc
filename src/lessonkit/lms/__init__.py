"""What a lesson page tells an LMS: `report` (the interactions its blocks make), `limits` (SCORM 2004's limits and the
site's formats, shared with the page's reporter), `text` (plain text of rendered markup), `vendor` (SCORM's npm files:
the runtime the tests' LMS embeds, the schemas the package carries). Packing the site is lessonkit.scorm's; course.yaml's
`scorm:` key is lessonkit.content.lms's; the page side is static/js/lms/."""
