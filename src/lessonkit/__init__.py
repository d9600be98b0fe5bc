"""lessonkit: a course folder of lesson markdown (quiz, widget, explain, lab and exercise blocks) and lab Python,
built into a static site whose labs run Python in the browser on Pyodide. `lessonkit --help` lists the commands."""

__version__ = "0.3.0"
