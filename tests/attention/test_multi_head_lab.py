"""The multi-head lesson's lab in CPython: what the lesson says about its heads holds for the lab's own numbers.

The lesson's figures are computed by lab/multi_head.py at build time, so they cannot disagree with it; what the prose
says around them (one head is the first two lessons, the heads' scores add up to the single head's, head 1 follows
the token before and head 2 the token itself, a one-number head has at most two favourite keys) is pinned here, so a
change to the lab that breaks one of those sentences fails a test. The earlier lessons' numbers are read from their
lab files' source (their top-level lines), not by running them.
"""

from __future__ import annotations

import ast
import math
from pathlib import Path

import multi_head as lab
import multi_head_widget as widget
import pytest

import labkit

LAB = Path(__file__).resolve().parents[2] / "lab"
KEYS = ["Key 1", "Key 2", "Key 3"]


def assigned(file: str, name: str) -> object:
    """The literal value of a lab file's top-level `name = …` line."""
    tree = ast.parse((LAB / file).read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == [name]:
            return ast.literal_eval(node.value)
    raise AssertionError(f"lab/{file} has no top-level {name} = …")


def favourites(weights: list[list[float]]) -> list[int | None]:
    """Each query's key with the largest weight (counting from 1), or None when two keys tie for it."""
    out = []
    for row in weights:
        top = max(row)
        winners = [j for j, w in enumerate(row, 1) if math.isclose(w, top, abs_tol=1e-12)]
        out.append(winners[0] if len(winners) == 1 else None)
    return out


def test_one_head_is_the_first_two_lessons() -> None:
    """Token 3's raw scores are lesson 1's, its weights and values lesson 2's, its output lesson 2's mixture twice."""
    layer = lab.multi_head(lab.tokens, 1)
    values, scores = assigned("mixing_values.py", "values"), assigned("mixing_values.py", "scores")
    assert layer["scores"][0][2] == assigned("scaled_softmax.py", "raw")
    assert layer["values"][0] == [v + v for v in values]
    assert layer["weights"][0][2] == pytest.approx(lab.softmax(scores), abs=1e-12)
    mixture = lab.mix([lab.softmax(scores)], values)[0]
    assert layer["outputs"][0][2] == pytest.approx(mixture + mixture, abs=1e-12)


@pytest.mark.parametrize("h", [2, 4])
def test_the_heads_scores_add_up_to_the_single_heads(h: int) -> None:
    single = lab.multi_head(lab.tokens, 1)["scores"][0]
    parts = lab.multi_head(lab.tokens, h)["scores"]
    n = len(lab.tokens)
    assert [[sum(part[i][j] for part in parts) for j in range(n)] for i in range(n)] == single


def test_two_heads_attend_to_different_keys() -> None:
    """Head 1: the token before (token 1 has none, so it spreads evenly); head 2: the token itself."""
    first, second = lab.multi_head(lab.tokens, 2)["weights"]
    assert favourites(first) == [None, 1, 2]
    assert first[0] == pytest.approx([1 / 3] * 3)
    assert favourites(second) == [1, 2, 3]
    single = lab.multi_head(lab.tokens, 1)["weights"][0]
    assert favourites(single)[1] is None  # token 2: one head ties the token before and itself


def test_no_one_number_head_attends_every_token_to_itself() -> None:
    """With d_k = 1 a head has at most two favourite keys; heads 3 and 4 each find one token's self only."""
    heads = lab.multi_head(lab.tokens, 4)["weights"]
    for weights in heads:
        assert len({f for f in favourites(weights) if f is not None}) <= 2
    assert [favourites(w) for w in heads] == [[None, 1, None], [None, None, 2], [None, 2, None], [1, None, None]]


def test_split_heads_cuts_and_concat_heads_joins() -> None:
    rows = lab.matmul(lab.tokens, lab.W_Q)
    for h in (1, 2, 4):
        parts = lab.split_heads(rows, h)
        assert len(parts) == h and all(len(piece) == 4 // h for part in parts for piece in part)
        assert lab.concat_heads(parts) == rows
    with pytest.raises(ValueError, match="4 numbers do not split into 3 heads"):
        lab.split_heads(rows, 3)


@pytest.mark.parametrize("h", [1, 2, 4])
def test_the_two_parameter_table_holds_the_one_parameter_tables_numbers(h: int) -> None:
    """attention(heads, show) is the matrix a shaded widget draws; weights(heads) is it written as percentages."""
    numbers, shown = widget.attention(h), widget.weights(h)
    assert [list(row) for row in numbers["rows"]] == [["Query", *KEYS]] * (3 * h)
    assert all(math.isclose(sum(row[k] for k in KEYS), 1.0) for row in numbers["rows"])
    assert shown["rows"] == [{**row, **{k: f"{100 * row[k]:.1f}%" for k in KEYS}} for row in numbers["rows"]]
    assert {k: v for k, v in shown.items() if k != "rows"} == {"d_k": 4 // h, "d_model": 4, "divisor": math.sqrt(4 // h)}
    raw = [s for part in lab.multi_head(lab.tokens, h)["scores"] for row in part for s in row]
    scaled = [row[k] for row in widget.attention(h, show="scores")["rows"] for k in KEYS]
    assert scaled == pytest.approx([s / math.sqrt(4 // h) for s in raw])
    with pytest.raises(ValueError, match='show is "weights" or "scores"'):
        widget.attention(h, show="both")


def test_the_outputs_table_adds_the_heads_shares() -> None:
    """Joined × W_O equals the sum of each head's output times its own rows of W_O."""
    layer = lab.multi_head(lab.tokens, 2)
    shares = [lab.matmul([out[2]], lab.W_O[2 * n:2 * n + 2])[0] for n, out in enumerate(layer["outputs"])]
    assert [a + b for a, b in zip(*shares, strict=True)] == pytest.approx(layer["output"][2])
    steps = [row["Step"] for row in widget.outputs(2)["rows"]]
    assert steps == ["Head 1 output", "Head 2 output", "Joined", "Head 1 × its rows of W_O", "Head 2 × its rows of W_O",
                     "Output: joined × W_O"]


def test_the_lab_draws_one_heatmap_per_head_and_importing_it_draws_nothing() -> None:
    """Run as the Lab runs it, it draws a heatmap per head; a widget or a check that imports it gets no chart."""
    code = (LAB / "multi_head.py").read_text(encoding="utf-8")
    for h in (1, 2, 4):
        out: list[str] = []
        result = labkit.run_code(code.replace("heads = 2  #", f"heads = {h}  #"), "multi_head.py",
                                 write_out=out.append, write_err=out.append)
        assert result["ok"], result["error"]
        assert [c["title"] for c in result["charts"]] == [f"Head {n} of {h}: attention weights" for n in range(1, h + 1)]
        # small multiples: one heatmap per head, a row per query and a column per key, its cells the head's weights
        assert {c["type"] for c in result["charts"]} == {"heatmap"}
        weights = lab.multi_head(lab.tokens, h)["weights"]
        for chart, head in zip(result["charts"], weights, strict=True):
            assert (chart["rows"], chart["cols"], chart["percent"]) == (["1", "2", "3"], ["1", "2", "3"], True)
            assert [x for row in chart["cells"] for x in row] == pytest.approx([x for row in head for x in row])
        assert "".join(out).startswith(f"heads={h}  d_k = 4 / {h} = {4 // h}")
    out = []
    fresh = "import sys\nsys.modules.pop(\"multi_head\", None)\nimport multi_head\n"  # run the file again, imported
    result = labkit.run_code(fresh, "check.py", write_out=out.append, write_err=out.append)
    assert result["ok"] and result["charts"] == [] and out == []


def test_the_tokens_are_the_matrix_the_panel_edits() -> None:
    """The values panel edits `tokens`, one row per token: the build reads it with the panel's grammar."""
    from lessonkit.blocks.lab.panel import read

    found = read((LAB / "multi_head.py").read_text(encoding="utf-8"), "tokens")
    assert found.matrix and found.values == lab.tokens == [[0, 0, 1, 1], [0, 1, 0, 0], [1, 0, 0, 1]]
