"""Fixture courses for build tests: lessons and labs written into a test's own folder, built, problems read back.

Nothing here reads the repository's lesson/ or lab/: an author adding a lesson never breaks a toolkit test.
"""

from __future__ import annotations

import os
import re
import struct
import zlib
from pathlib import Path

import pytest

from lessonkit.core.errors import BuildError
from lessonkit.pipeline.site import build_site

ROOT = Path(__file__).resolve().parent.parent
COURSE = "title: A course\n"

LESSON = """---
title: A lesson
---

## Part

Some text.
"""

LAB_LESSON = """---
title: A lesson with a lab
---

## Lab

```{lab}
id: demo
file: demo.py
timeout: 1
```
"""

# One quiz of two options, as a block; WHY is the first option's explanation, for a test to replace.
QUIZ_BLOCK = """```{quiz}
id: check
questions:
  - question: Which?
    options:
      - text: This one
        correct: true
        why: WHY
      - text: That one
        why: Because.
```
"""
QUIZ = "---\ntitle: A quiz\n---\n\n## Check\n\n" + QUIZ_BLOCK

# A quiz block of yes-or-no questions, "Yes" the right answer to each.
YES_NO = """  - question: {question}
    options:
      - text: Yes
        correct: true
        why: It is.
      - text: No
        why: It is not.
"""


def yes_no_quiz(*questions: str) -> str:
    """A quiz block (id: check) asking each question, "Yes" the right answer."""
    return "```{quiz}\nid: check\nquestions:\n" + "".join(YES_NO.format(question=q) for q in questions) + "```\n"


# One explain block of one claim.
EXPLAIN = """```{explain}
id: in-your-words
prompt: "Say it back:"
claims:
  - text: A claim.
    verdict: correct.
```
"""

# A lesson with one block of each type; its widget reads the lab's own scores and softmax.
DEMO_LAB = '''"""Fixed scores, multiplied by k before softmax."""

import math

scores = [0.0, 4.0, 2.0]


def softmax(xs):
    """Weights that add up to 1."""
    top = max(xs)
    exps = [math.exp(x - top) for x in xs]
    return [e / sum(exps) for e in exps]


for k in [1, 2]:
    print(f"k={k}", [round(p, 3) for p in softmax([k * x for x in scores])])
'''
DEMO_WIDGET = '''"""The widget's table: the lab's scores, times k, through the lab's softmax."""

from demo import scores, softmax


def table(k):
    """One row per key; the largest weight for the caption."""
    weights = softmax([k * x for x in scores])
    rows = [{"Key": i + 1, "Score": k * s, "Weight": w} for i, (s, w) in enumerate(zip(scores, weights))]
    return {"rows": rows, "top": max(weights)}
'''
DEMO = """---
title: Demo lesson
slug: demo
order: 1
summary: Every block once.
---

## Goal

Multiplying the scores by 2 gives key 2 [[mix:2:2]] of the weight.

## Weights

```{widget}
id: mix
file: demo_widget.py
function: table
parameter:
  label: Factor $k$
  hint: multiplies every score
  options: [0.5, 1, 2]
  default: 1
caption: "k = {value}: the largest weight is {top:.3f}"
bar: Weight
check:
  1: ["1.6%", "86.7%", "11.7%"]
note: At $k = 0.5$ key 2 gets [[mix:0.5:2]].
```

## Predict

```{quiz}
id: predict
questions:
  - question: What does a larger k do?
    options:
      - text: Sharper weights
        correct: true
        why: Bigger gaps.
      - text: Flatter weights
        why: That is what a smaller k does.
      - text: Nothing
        why: The gaps change.
```

## Lab

```{lab}
id: demo
file: demo.py
title: Demo lab
timeout: 5
```

## Explain it back

```{explain}
id: explain
prompt: "Explain the difference:"
claims:
  - text: k changes the order.
    verdict: not correct.
```
"""

# The fixture lesson of the widget's browser tests: a sigmoid's steepness k, its own lab, no prediction.
SIGMOID_LAB = '''"""The sigmoid σ(kx) = 1 / (1 + e^(−kx)) for a few steepness values k."""

import math

xs = [-2.0, -1.0, 0.0, 1.0, 2.0]


def sigmoid(x):
    """The logistic function."""
    return 1 / (1 + math.exp(-x))


for k in [0.25, 1, 4]:
    print(f"k={k:<4}", " ".join(f"{sigmoid(k * x):.3f}" for x in xs))
'''
SIGMOID_WIDGET = '''"""The lesson's table: σ(kx) at five points, for one steepness k."""

from sigmoid import sigmoid, xs


def table(k):
    """One row per x; the outputs at both ends for the caption."""
    rows = [{"x": x, "kx": k * x, "σ(kx)": sigmoid(k * x)} for x in xs]
    return {"rows": rows, "low": sigmoid(k * xs[0]), "high": sigmoid(k * xs[-1])}
'''
SIGMOID = """---
title: Steepness of a sigmoid
slug: sigmoid
order: 1
summary: How the steepness k of σ(kx) squeezes its outputs towards 0 and 1.
---

## Goal

The sigmoid $\\sigma(kx)$ turns any number into one between 0 and 1. At $x = 1$ it gives [[steep:1:4]] for
$k = 1$, and [[steep:4:4 = 98.2%]] for $k = 4$.

## Steepness

```{widget}
id: steep
file: sigmoid_widget.py
function: table
parameter:
  label: Steepness $k$
  hint: multiplies x before the sigmoid
  options: [0.25, 1, 4]
  default: 1
caption: "k = {value}: from {low:.3f} to {high:.3f}"
bar: σ(kx)
check:
  1: ["11.9%", "26.9%", "50.0%", "73.1%", "88.1%"]
note: >-
  At $k = 4$ the output at $x = 1$ is [[steep:4:4]]; at $k = 0.25$ it is only
  [[steep:0.25:4:σ(kx)]], and $kx$ is [[steep:0.25:4:kx]].
```

## Lab

```{lab}
id: sigmoid
file: sigmoid.py
title: Sigmoid lab
```
"""


# Matrices: a lab drawing heatmaps (masked cells) and a line chart, and a widget over two parameters (a labelled
# option with formats of its own, shaded `heat:` columns, formats per column, masked cells written "−∞").
MASK_LAB = '''"""Causal masking: each token's query may look at itself and the tokens before it, never after."""

import math

import labkit

tokens = ["The", "cat", "sat", "down"]
scores = [
    [2.0, 1.0, 0.5, -1.0],
    [0.5, 2.0, 1.0, 0.0],
    [1.0, 0.0, 2.0, 0.5],
    [0.0, 1.0, -0.5, 2.0],
]


def softmax(row):
    """Weights that add up to 1; a score of -inf gets none."""
    top = max(x for x in row if x != -math.inf)
    exps = [0.0 if x == -math.inf else math.exp(x - top) for x in row]
    return [e / sum(exps) for e in exps]


def mask(rows):
    """The scores with every later key set to -inf."""
    return [[-math.inf if j > i else x for j, x in enumerate(row)] for i, row in enumerate(rows)]


def weights(rows, when="before"):
    """Mask before softmax (the weights of a row still add up to 1), or zero the later keys after it (they do not)."""
    if when == "before":
        return [softmax(row) for row in mask(rows)]
    return [[0.0 if j > i else w for j, w in enumerate(softmax(row))] for i, row in enumerate(rows)]


if __name__ == "__main__":
    labkit.heatmap(mask(scores), rows=tokens, cols=tokens, row_title="Query", col_title="Key",
                   title="Masked scores")
    for when in ("before", "after"):
        shown = weights(scores, when)
        print(when, [round(sum(row), 3) for row in shown])
        labkit.heatmap([[None if j > i else w for j, w in enumerate(row)] for i, row in enumerate(shown)],
                       rows=tokens, cols=tokens, row_title="Query", col_title="Key",
                       title=f"Weights, mask {when} softmax", percent=True)
    labkit.lines({t: [softmax([x / s for x in scores[3]])[k] for s in (0.5, 1, 2, 4)] for k, t in enumerate(tokens)},
                 x=[0.5, 1, 2, 4], series_title="key", x_title="Temperature", y_title="Weight of query 4",
                 percent=True, title="Query 4's weights as the temperature grows")
'''
MASK_WIDGET = '''"""The lesson's masked attention table: the lab's scores over a temperature, masked before or after softmax."""

import math

from masking import mask, scores, tokens, weights


def table(temperature, show):
    """One row per query, one column per key: the masked scores (-inf), or the weights (None where masked)."""
    scaled = [[x / temperature for x in row] for row in scores]
    if show == "scores":
        shown = mask(scaled)
    else:
        shown = weights(scaled, show)
        if show == "before":
            shown = [[None if j > i else w for j, w in enumerate(row)] for i, row in enumerate(shown)]
    rows = [{"Query": t, **dict(zip(tokens, row)), "Sum": sum(x for x in row if x is not None and x != -math.inf)}
            for t, row in zip(tokens, shown)]
    return {"rows": rows, "top": weights(scaled)[3][3]}
'''
MASK = '''---
title: Causal masking
slug: masking
order: 1
summary: Why a decoder adds −∞ to later keys before softmax, rather than zeroing their weights after it.
---

## Goal

Token 2 ("cat") puts [[mask:1,before:2:cat = 81.8%]] of its weight on itself when the mask comes before softmax,
and only [[mask:1,after:2:cat]] when the later keys are zeroed after it.

## Mask

```{widget}
id: mask
file: masking_widget.py
function: table
parameters:
  - name: temperature
    label: Temperature $T$
    hint: divides every score
    options: [0.5, 1, 2]
    default: 1
  - name: show
    label: Show
    options:
      - value: scores
        label: "Scores $s / T$, masked"
        formats: {The: "{:.1f}", cat: "{:.1f}", sat: "{:.1f}", down: "{:.1f}", Sum: "{:.1f}"}
      - {value: before, label: Mask before softmax}
      - {value: after, label: Zero after softmax}
    default: before
caption: "T = {temperature}: query 4 keeps {top:.1%} for itself"
heat: [The, cat, sat, down]
masked: "−∞"
formats: {The: percent, cat: percent, sat: percent, down: percent, Sum: percent}
figure: cat
check:
  "1,before": ["−∞", "81.8%", "9.0%", "23.2%"]
  "2, after": ["0.0%", "40.9%", "15.0%", "26.8%"]
note: Masked before softmax, every row still adds up to 100 %.
```

## Lab

```{lab}
id: masking
file: masking.py
title: Masking lab
```
'''

# A causal-masking lesson as a new author writes one from the README: math with stretchy fences, cases and matrices; a
# widget over the sequence length n whose table is n × n (its heat and formats follow), and over what it shows; a lab
# printing a fixed-width table and drawing two heatmaps (masked cells worded for learners) and a bar chart, with a
# 5 × 5 values panel and a prediction about a heatmap; a quick check, an explanation and an exercise.
CAUSAL_LAB = '''"""Causal masking over five tokens: each query attends to itself and the tokens before it, never after."""

import math

import labkit

tokens = ["The", "cat", "sat", "on", "mats"]
scores = [
    [2.0, 1.0, 0.5, -1.0, 0.0],
    [0.5, 2.0, 1.0, 0.0, 1.5],
    [1.0, 0.0, 2.0, 0.5, -0.5],
    [0.0, 1.0, -0.5, 2.0, 1.0],
    [1.5, -1.0, 0.5, 1.0, 2.0],
]


def softmax(row):
    """Weights that add up to 1; a score of -inf gets none."""
    top = max(x for x in row if x != -math.inf)
    exps = [0.0 if x == -math.inf else math.exp(x - top) for x in row]
    return [e / sum(exps) for e in exps]


def causal(rows):
    """The scores with every later key set to -inf."""
    return [[-math.inf if j > i else x for j, x in enumerate(row)] for i, row in enumerate(rows)]


def weights(rows):
    """Each query's weights over the keys it may attend to."""
    return [softmax(row) for row in causal(rows)]


if __name__ == "__main__":
    shown = weights(scores)
    names = tokens + [f"t{n}" for n in range(len(tokens) + 1, len(scores) + 1)]
    print(f"{'query':<8}" + "".join(f"{t:>10}" for t in names[:len(scores)]) + f"{'sum':>10}")
    for name, row in zip(names, shown):
        print(f"{name:<8}" + "".join(f"{w:>10.4f}" for w in row) + f"{sum(row):>10.4f}")
    labels = names[:len(scores)]
    labkit.heatmap(causal(scores), rows=labels, cols=labels, row_title="Query", col_title="Key",
                   title="Masked scores", masked="masked: not attended to")
    labkit.heatmap([[None if j > i else w for j, w in enumerate(row)] for i, row in enumerate(shown)], rows=labels,
                   cols=labels, row_title="Query", col_title="Key", percent=True,
                   title="Causal attention weights (masked cells hatched)", masked="masked: not attended to")
    labkit.bars({name: row for name, row in zip(labels, shown)}, labels=labels, series_title="query",
                x_title="Key", y_title="Weight", percent=True, title="Each query's weights")
'''
CAUSAL_WIDGET = '''"""The lesson's table: the first n tokens' scores, masked, or their weights: n rows by n keys."""

from causal import causal, scores, tokens, weights


def table(n, show):
    """One row per query and one column per key of the first n tokens, and each row's sum."""
    first = [row[:n] for row in scores[:n]]
    shown = causal(first) if show == "scores" else [
        [None if j > i else w for j, w in enumerate(row)] for i, row in enumerate(weights(first))]
    rows = [{"Query": t, **dict(zip(tokens, row)), "Sum": sum(x for x in row if x is not None and x > -1e300)}
            for t, row in zip(tokens, shown)]
    return {"rows": rows, "kept": weights(first)[n - 1][n - 1]}
'''
CAUSAL = r'''---
title: "Causal masking: why a decoder adds −∞ before softmax"
slug: causal
summary: A decoder's query attends to itself and the tokens before it; the mask is added before softmax.
---

## The mask

Query $i$ may attend to key $j$ only when $j \le i$, so the $i$-th query attends to $i$ keys ($1 \le j \le i$). The
mask added to the scores is

$$
M_{ij} = \left\{ \begin{array}{ll} 0 & j \le i \\ -\infty & j > i \end{array} \right.
$$

and attention, its scores divided by $\sqrt{d_k}$, is

$$
\operatorname{softmax}\left(\frac{QK^T}{\sqrt{d_k}} + M\right)V
$$

A masked score is $-\infty$, and $e^{-\infty} = 0$ for every finite score $s$. So every masked key gets exactly zero
weight, however large its score. Written as cases, each weight is

$$
a_{ij} = \begin{cases} \frac{e^{s_{ij}}}{\sum_{k \le i} e^{s_{ik}}} & j \le i \\ 0 & j > i \end{cases}
$$

and for three tokens the mask is

$$
M = \begin{pmatrix} 0 & -\infty & -\infty \\ 0 & 0 & -\infty \\ 0 & 0 & 0 \end{pmatrix}, \qquad
W = \begin{bmatrix} 1 & 0 \\ 0.18 & 0.82 \end{bmatrix}
$$

In PyTorch the mask is `torch.triu(torch.ones(n, n, dtype=torch.bool), diagonal=1)`, and the masked scores are
`scores.masked_fill(torch.triu(torch.ones(n,n,dtype=torch.bool),diagonal=1),float("-inf"))`.

| Query | The | cat | sat | on | Sum |
|---|---|---|---|---|---|
| The | 100.0% | masked | masked | masked | 100.0% |
| cat | 18.2% | 81.8% | masked | masked | 100.0% |

## Weights

```{widget}
id: mask
file: causal_widget.py
function: table
parameters:
  - name: n
    label: Tokens $n$
    options: [2, 3, 4, 5]
    default: 4
  - name: show
    label: Show
    options:
      - value: scores
        label: "Scores, masked"
        formats: {The: "{:.1f}", cat: "{:.1f}", sat: "{:.1f}", "on": "{:.1f}", mats: "{:.1f}", Sum: "{:.1f}"}
      - {value: weights, label: Weights}
    default: weights
caption: "n = {n}: the last token keeps {kept:.1%} for itself"
heat: [The, cat, sat, "on", mats]
formats: {The: percent, cat: percent, sat: percent, "on": percent, mats: percent, Sum: percent}
figure: The
check:
  "2,weights": ["100.0%", "18.2%"]
note: Each row of weights adds up to 100 %; a masked key gets none.
```

## Lab

```{lab}
id: causal
file: causal.py
title: Causal lab
panel:
  variable: scores
  legend: "Scores: one row per query"
  rows: [The, cat, sat, "on", mats]
  cols: [The, cat, sat, "on", mats]
  min: 2
  max: 6
predict:
  question: "Before you run: how will cat's weight on itself move?"
  chart: Causal attention weights (masked cells hatched)
  cell: [cat, cat]
  answers: {more: up, less: down, unchanged: same}
  outcomes: {up: cat attends more to itself, down: cat attends less to itself, same: cat's weight on itself stayed}
```

## Quick Check

```{quiz}
id: quick-check
questions:
  - question: Which line masks the scores before softmax?
    options:
      - text: "`scores.masked_fill(torch.triu(torch.ones(n,n,dtype=torch.bool),diagonal=1),float(\"-inf\"))`"
        correct: true
        why: It sets every later key's score to −∞, so softmax gives it no weight.
      - text: "`weights*torch.tril(torch.ones(n,n))`"
        why: That zeroes weights after softmax, and the rows no longer add up to 1.
```

## Explain it back

```{explain}
id: explain
prompt: "Explain why the mask is added before softmax:"
claims:
  - text: Zeroing the weights after softmax is the same.
    verdict: not correct; the rows would no longer add up to 1.
```

## Exercise

```{exercise}
id: mask-row
title: "Exercise: mask one row"
prompt: Write `masked(row, i)`, which sets every score after position `i` to `-math.inf`.
starter: |
  import math

  def masked(row, i):
      return row
solution: |
  import math

  def masked(row, i):
      return [x if j <= i else -math.inf for j, x in enumerate(row)]
checks:
  - name: masks the keys after i
    code: |
      import math
      assert masked([1.0, 2.0, 3.0], 0) == [1.0, -math.inf, -math.inf]
  - name: keeps the keys up to i
    code: assert masked([1.0, 2.0, 3.0], 2) == [1.0, 2.0, 3.0]
```
'''


def write_causal(tmp_path: Path, lesson: str = CAUSAL, **labs: str) -> Path:
    """The causal-masking course under tmp_path; `labs` replaces or adds lab files (name without .py)."""
    return write_course(tmp_path, {"causal.md": lesson}, {"causal.py": CAUSAL_LAB, "causal_widget.py": CAUSAL_WIDGET,
                                                          **{f"{k}.py": v for k, v in labs.items()}})


# An exercise: write mean(xs); a check compares it with the lab file's own function.
STATS_LAB = '''"""The average of a few values."""

values = [2.0, 4.0, 9.0]


def mean(xs):
    """The arithmetic mean."""
    return sum(xs) / len(xs)


print(f"mean = {mean(values):.2f}")
'''
EXERCISE = """---
title: Averages
slug: averages
---

## Exercise

```{exercise}
id: mean
prompt: Write `mean(xs)`, which returns the average of a list of numbers.
starter: |
  def mean(xs):
      return 0
solution: |
  def mean(xs):
      return sum(xs) / len(xs)
checks:
  - name: averages the lab's values
    code: |
      from stats import mean as reference, values
      assert close(mean(values), reference(values))
  - name: one value
    code: assert mean([7]) == 7
  - name: negative numbers
    code: assert close(mean([-1, -3]), -2)
    secret: true
hints:
  - Add the numbers with `sum`.
  - Divide by how many there are, `len(xs)`.
remarks: Python's `statistics.mean` does the same.
attempts: 2
timeout: 2
```
"""


def write_exercise(tmp_path: Path, lesson: str = EXERCISE, **labs: str) -> Path:
    """The exercise course under tmp_path; `labs` replaces or adds lab files."""
    return write_course(tmp_path, {"averages.md": lesson},
                        {"stats.py": STATS_LAB, **{f"{k}.py": v for k, v in labs.items()}})


def write_course(tmp_path: Path, lessons: dict[str, str | bytes], labs: dict[str, str | bytes] | None = None,
                 course: str | None = COURSE) -> Path:
    """A course folder at tmp_path: its course.yaml (`lessons`' "course.yaml", else `course`; None: none), lesson/
    and lab/."""
    lessons = dict(lessons)
    given = "course.yaml" in lessons
    config = lessons.pop("course.yaml", course)
    path = tmp_path / "course.yaml"
    if config is not None and (given or not path.exists()):  # a later call adds files to the same course
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(config if isinstance(config, bytes) else config.encode("utf-8"))
    for folder, files in (("lesson", lessons), ("lab", labs or {})):
        (tmp_path / folder).mkdir(parents=True, exist_ok=True)
        for name, content in files.items():
            path = tmp_path / folder / name
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                path.write_bytes(content)
            else:
                path.write_text(content, encoding="utf-8")
    return tmp_path


def write_demo(tmp_path: Path, lesson: str = DEMO, **labs: str) -> Path:
    """The demo course (one lesson with every block) under tmp_path; `labs` replaces or adds lab files."""
    return write_course(tmp_path, {"demo.md": lesson}, {"demo.py": DEMO_LAB, "demo_widget.py": DEMO_WIDGET,
                                                        **{f"{k}.py": v for k, v in labs.items()}})


def write_sigmoid(tmp_path: Path) -> Path:
    """The sigmoid course under tmp_path."""
    return write_course(tmp_path, {"sigmoid.md": SIGMOID}, {"sigmoid.py": SIGMOID_LAB,
                                                            "sigmoid_widget.py": SIGMOID_WIDGET})


def mask_with_panel(low: int, high: int) -> str:
    """The masking lesson with a matrix panel over its lab's scores (4 by 4, labelled by the tokens), whose rows and
    columns the panel keeps from `low` to `high`."""
    return edit(MASK, "title: Masking lab\n", f"""title: Masking lab
panel:
  variable: scores
  legend: "Scores: one row per query"
  rows: [The, cat, sat, down]
  cols: [The, cat, sat, down]
  min: {low}
  max: {high}
""")


def write_masking(tmp_path: Path, lesson: str = MASK) -> Path:
    """The causal-masking course under tmp_path (heatmaps, lines, a two-parameter widget)."""
    return write_course(tmp_path, {"masking.md": lesson}, {"masking.py": MASK_LAB, "masking_widget.py": MASK_WIDGET})


def build(tmp_path: Path) -> Path:
    """Build the course written under tmp_path; returns the site folder."""
    out = tmp_path / "site"
    build_site(tmp_path, out)
    return out


def first_lesson(site: Path) -> Path:
    """A built site's first lesson page, as its course manifest names it (the index page's island)."""
    import json

    html = (site / "index.html").read_text(encoding="utf-8")
    found = re.search(r'<script type="application/json" id="course-manifest">(.*?)</script>', html, re.S)
    assert found, "the index page has no course manifest"
    return site / json.loads(found.group(1))["lessons"][0]["href"]


def problems(tmp_path: Path) -> list[str]:
    """The problems a build of the course under tmp_path reports (it must fail, and write no site)."""
    with pytest.raises(BuildError) as info:
        build(tmp_path)
    assert not (tmp_path / "site").exists()
    return [p.replace(f"{tmp_path}/", "") for p in info.value.problems]


def edit(text: str, old: str, new: str) -> str:
    """`text` with one exact edit (which must apply)."""
    assert old in text, old
    return text.replace(old, new, 1)


def line_of(text: str, needle: str) -> int:
    """1-based line of `needle` in `text`."""
    return text[: text.index(needle)].count("\n") + 1


def island(html: str, block: str) -> dict:
    """The JSON island of the first block of type `block` in a page."""
    import json

    found = re.search(rf'data-block="{block}".*?<script type="application/json" data-block-island[^>]*>(.*?)</script>',
                      html, re.S)
    assert found, f"no {block} block"
    return json.loads(found.group(1))


def png(width: int = 2, height: int = 1) -> bytes:
    """A small valid PNG (grey pixels)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    rows = b"".join(b"\0" + b"\x80" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


def tiny_index(folder: Path) -> dict[str, str]:
    """A package index of one pure-Python wheel, tiny-pkg 1.0, in `folder`: the environment that points pip at it alone
    (no network, no user config)."""
    import zipfile

    folder.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(folder / "tiny_pkg-1.0-py3-none-any.whl", "w") as whl:
        whl.writestr("tiny_pkg/__init__.py", "")
        whl.writestr("tiny_pkg-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: tiny-pkg\nVersion: 1.0\n")
        whl.writestr("tiny_pkg-1.0.dist-info/WHEEL", "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
        whl.writestr("tiny_pkg-1.0.dist-info/RECORD", "")
    return {"PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(folder), "PIP_CONFIG_FILE": os.devnull}
