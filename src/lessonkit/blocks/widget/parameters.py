"""A {widget}'s controls: `parameter:` (one, called positionally: `table(value)`) or `parameters:` (several, each
the function's keyword argument: `attention(heads=2, show="weights")`), their options and every combination.

An option is a number, a word (`before`), or `{value: before, label: "Before the step", formats: {...}}`: a
labelled option is shown with its label, and may set the number formats of columns while it is chosen. A parameter
of numbers without labels is a row of radio buttons (today's control), or a slider with `range:`; one with words or
labels is a group of radio buttons, or a select for more than SELECT_OVER options. Each combination of the
parameters' options is one table the build computes (at most MAX_TABLES); its key is the options' keys in
parameter order, joined by commas (`2,weights`): figures and `check:` name a combination by it.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from typing import Any

from lessonkit.content.schema import INVALID, At, Fields, Inline, Key, ListOf, MapOf, Number, Text, Type
from lessonkit.text.figures import option_key, parse_option

MAX_VALUES = 101  # one parameter's options (slider positions): each is at least one table in the page
MAX_TABLES = 400  # combinations of every parameter's options: each is a table in the page
SELECT_OVER = 6  # more labelled options than this are a select, not radio buttons
IDENTIFIER = r"[A-Za-z_][A-Za-z0-9_]*"
WORD = r"[^\s,:\[\]=]+"  # a word option: no space, and none of the characters figures and combination keys use


class OptionValue(Fields):
    """One option: a number, a word, or a mapping {value, label, formats} (a Fields, so its own keys report their
    problems)."""

    what = 'a number, a word, or "{value: …, label: …}"'
    example = '[1, 2, 4] or [{value: before, label: "Before the step"}]'
    doc = "number, word or {value, label, formats}"

    def __init__(self, labelled: Fields) -> None:
        super().__init__(labelled.keys, example=type(self).example)

    def check(self, value: Any, at: At) -> Any:
        if isinstance(value, dict):
            return super().check(value, at)
        if isinstance(value, bool):
            return INVALID
        if isinstance(value, int | float):
            return value if math.isfinite(value) else INVALID
        return Text(WORD, "a word").check(value, at)


class NumberOrWord(Type):
    """A `default:` or a labelled option's `value:`: a number or a word."""

    what = "a number or a word"
    doc = "number or word"

    def check(self, value: Any, at: At) -> Any:
        if isinstance(value, bool):
            return INVALID
        if isinstance(value, int | float):
            return value if math.isfinite(value) else INVALID
        return Text(WORD, "a word").check(value, at)


FORMATS = MapOf(Text(), Text(), what='"Column: format" lines', example='{Weight: percent, Score: "{:.2f}"}')
LABELLED = Fields({
    "value": Key(NumberOrWord(), required=True, hint='with the value the function gets, e.g. "value: before"',
                 doc="what the function gets"),
    "label": Key(Inline(), doc="what the control shows (default: the value)"),
    "formats": Key(FORMATS, doc="number formats of columns while this option is chosen"),
})
RANGE = Fields({"min": Key(Number(), required=True), "max": Key(Number(), required=True),
                "step": Key(Number(above=0), required=True)}, example="{min: 0.25, max: 4, step: 0.25}")
_COMMON = {
    "label": Key(Inline(), required=True, hint='naming the parameter, e.g. "label: Steepness k"',
                 doc="the control's name"),
    "hint": Key(Inline(), doc="a few words after the name, in brackets"),
    "options": Key(ListOf(OptionValue(LABELLED), min=1, example="[0.25, 1, 4]"),
                   doc="the values: numbers, words, or {value, label} (radio buttons, or a select past 6)"),
    "range": Key(RANGE, doc=f"instead of options: a slider from min to max by step (at most {MAX_VALUES} values)"),
    "default": Key(NumberOrWord(), doc="the value shown first, and without JavaScript (default: the first)"),
}
PARAMETER = Fields(dict(_COMMON))
NAMED = Fields({
    "name": Key(Text(IDENTIFIER, "a Python name", '"name: heads"'), required=True,
                hint="naming the function's keyword argument, e.g. \"name: heads\"",
                doc="the function's keyword argument"),
    **_COMMON,
})


@dataclass
class Option:
    """One value a parameter offers."""

    key: str  # its spelling in keys, figures and the page: "4", "0.25", "before"
    value: Any  # what the function gets: an int for a whole number, a float, or a word
    label: Any  # the author's label (inline markdown, rendered by the build), or None: the control shows the key
    formats: dict[str, str] = field(default_factory=dict)
    formats_line: int = 0


@dataclass
class Parameter:
    """One control."""

    name: str | None  # the keyword argument; None for `parameter:` (called positionally)
    path: tuple[str | int, ...]  # where its YAML is: ("parameter",) or ("parameters", n)
    options: dict[str, Option]
    default: str
    control: str  # "radio", "range" or "select"
    range: dict[str, str] | None = None
    numeric: bool = True  # every option a number: typed options are matched as numbers ("0.25" is ".25")

    def parse(self, text: str) -> str | None:
        """The option key `text` names (numbers matched as numbers), or None."""
        text = text.strip()
        key = parse_option(text) if self.numeric else text
        return key if key in self.options else None


@dataclass
class Controls:
    """Every parameter and every combination of their options."""

    parameters: list[Parameter]
    keys: list[str]  # every combination's key, in order (the first parameter's options vary slowest)
    default: str

    def combination(self, key: str) -> list[Option]:
        """The options a combination's key names."""
        return [p.options[k] for p, k in zip(self.parameters, key.split(","), strict=True)]

    def parse(self, text: str) -> str | None:
        """The combination a typed key names ("2, weights", "4" for one parameter), or None."""
        parts = text.split(",")
        if len(parts) != len(self.parameters):
            return None
        keys = [p.parse(part) for p, part in zip(self.parameters, parts, strict=True)]
        return None if None in keys else ",".join(k for k in keys if k is not None)

    def arguments(self, key: str) -> tuple[list[Any], dict[str, Any]]:
        """(args, kwargs) the function is called with for a combination."""
        options = self.combination(key)
        if self.parameters[0].name is None:
            return [options[0].value], {}
        return [], {p.name: o.value for p, o in zip(self.parameters, options, strict=True) if p.name}

    def call_text(self, function: str, key: str) -> str:
        """How messages write the call: table(4), attention(heads=2, show="weights")."""
        args, kwargs = self.arguments(key)
        shown = [_shown(v) for v in args] + [f"{k}={_shown(v)}" for k, v in kwargs.items()]
        return f"{function}({', '.join(shown)})"


def _shown(value: Any) -> str:
    return f'"{value}"' if isinstance(value, str) else option_key(value)


def controls(ctx: Any) -> Controls | None:
    """The widget's parameters, checked, and their combinations; None after reporting what is wrong."""
    data = ctx.data
    if ("parameter" in data) == ("parameters" in data):
        ctx.error('the {widget} block needs "parameter:" (one control) or "parameters:" (a list of them, each with a '
                  '"name:"), not both' if "parameter" in data else
                  'the {widget} block needs "parameter:" with its label and options (or range), or "parameters:" '
                  'for several')
        return None
    if "parameter" in data:
        found = [_parameter(ctx, data["parameter"], None, ("parameter",))]
    else:
        found = [_parameter(ctx, item, str(item["name"]), ("parameters", n))
                 for n, item in enumerate(data["parameters"])]
        names = [str(item["name"]) for item in data["parameters"]]
        for n, name in enumerate(names):
            if name in names[:n]:
                ctx.error(f'"parameters:" names "{name}" twice — give each parameter its own name',
                          ctx.line("parameters", n, "name"))
    if ctx.failed or None in found:
        return None
    parameters = [p for p in found if p is not None]
    count = math.prod(len(p.options) for p in parameters)
    if count > MAX_TABLES:
        sizes = " × ".join(str(len(p.options)) for p in parameters)
        ctx.error(f'"parameters:" gives {sizes} = {count} combinations — a widget holds at most {MAX_TABLES} tables: '
                  "offer fewer options", ctx.line("parameters"))
        return None
    keys = [",".join(combo) for combo in itertools.product(*(list(p.options) for p in parameters))]
    return Controls(parameters, keys, ",".join(p.default for p in parameters))


def _where(path: tuple[str | int, ...]) -> str:
    """How messages name a parameter: the {widget} block's "parameter:", or parameter 2 of its "parameters:"."""
    if path == ("parameter",):
        return 'the {widget} block\'s "parameter:"'
    return f'parameter {int(path[1]) + 1} of the {{widget}} block\'s "parameters:"'


def _parameter(ctx: Any, data: Any, name: str | None, path: tuple[str | int, ...]) -> Parameter | None:
    """One parameter's options (or slider values) and default."""
    where = _where(path)
    if ("options" in data) == ("range" in data):
        ctx.error(f'{where} needs "options:" (a list of numbers or words, e.g. [1, 4, 16]) or '
                  '"range:" ({min: 0.25, max: 4, step: 0.25}), not both', ctx.line(*path))
        return None
    if "range" in data:
        options = _range(ctx, data["range"], path)
        control = "range"
    else:
        options = _options(ctx, data["options"], path)
        labelled = options is not None and any(o.label is not None or not _is_number(o.value) for o in options.values())
        control = ("select" if len(options) > SELECT_OVER else "radio") if labelled and options else "radio"
    if options is None:
        return None
    numeric = all(_is_number(o.value) for o in options.values())
    default = _default(ctx, data, options, numeric, path)
    if default is None:
        return None
    rng = {k: option_key(data["range"][k]) for k in ("min", "max", "step")} if "range" in data else None
    return Parameter(name, path, options, default, control, rng, numeric)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _options(ctx: Any, items: Any, path: tuple[str | int, ...]) -> dict[str, Option] | None:
    """The options by key, each once."""
    out: dict[str, Option] = {}
    for n, item in enumerate(items):
        line = ctx.line(*path, "options", n)
        labelled = isinstance(item, dict)
        value = item["value"] if labelled else item
        if _is_number(value):
            key = option_key(value)
            value = int(value) if float(value).is_integer() else value
        else:
            key = str(value)
        if key in out:
            ctx.error(f'"options:" of {_where(path)} lists {key} twice — list each value once', line)
            return None
        if out and _is_number(value) != _is_number(next(iter(out.values())).value):
            first = "a number" if _is_number(next(iter(out.values())).value) else "a word"
            this = f"the number {key}" if _is_number(value) else f'the word "{key}"'
            ctx.error(f'option {n + 1} of {_where(path)} is {this}, but option 1 is {first} — give every option a '
                      "number, or every option a word", line)
            return None
        label = item["label"] if labelled and item.get("label") else None
        formats = dict(item.get("formats") or {}) if labelled else {}
        formats_line = ctx.line(*path, "options", n, "formats") if formats else 0
        out[key] = Option(key, value, label, {str(k): str(v) for k, v in formats.items()}, formats_line)
    if len(out) > MAX_VALUES:
        ctx.error(f'"options:" lists {len(out)} values — a widget holds at most {MAX_VALUES}',
                  ctx.line(*path, "options"))
        return None
    return out


def _range(ctx: Any, rng: Any, path: tuple[str | int, ...]) -> dict[str, Option] | None:
    """A slider's values, from min to max by step."""
    low, high, step = (rng[k] for k in ("min", "max", "step"))
    at = ctx.line(*path, "range")
    steps = (high - low) / step
    if high <= low:
        ctx.error(f'"range:" goes from {option_key(low)} to {option_key(high)} — "max:" must be more than "min:"', at)
        return None
    if abs(steps - round(steps)) > 1e-9 * max(1.0, steps):
        ctx.error(f'"range:" steps from {option_key(low)} by {option_key(step)} never reach {option_key(high)} — make '
                  '"max:" "min:" plus a whole number of steps', at)
        return None
    if round(steps) + 1 > MAX_VALUES:
        ctx.error(f'"range:" gives {round(steps) + 1} values — a slider holds at most {MAX_VALUES}: take a larger '
                  '"step:"', at)
        return None
    places = max(_places(low), _places(step))
    out = {}
    for i in range(round(steps) + 1):
        value = round(low + i * step, places)
        key = option_key(value)
        out[key] = Option(key, int(value) if float(value).is_integer() else value, None)
    return out


def _places(x: float) -> int:
    """Decimal places a number is written with (0.25 → 2), so a range's values do not collect float error."""
    digits = repr(float(x)).split("e")[0]
    return len(digits.split(".")[1].rstrip("0")) if "." in digits else 0


def _default(ctx: Any, data: Any, options: dict[str, Option], numeric: bool, path: tuple[str | int, ...]) -> str | None:
    """The default option's key (the first one unless `default:` names another)."""
    if "default" not in data:
        return next(iter(options))
    given = data["default"]
    key = option_key(given) if _is_number(given) else str(given)
    if not numeric and _is_number(given):
        key = next((k for k, o in options.items() if o.value == given), key)
    if key not in options:
        shown = ", ".join(options) if len(options) <= 12 else f"{next(iter(options))} to {list(options)[-1]}"
        ctx.error(f'"default:" {key} is not one of the values ({shown}) — choose one of them',
                  ctx.line(*path, "default"))
        return None
    return key

