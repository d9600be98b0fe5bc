"""{commands}: the `lessonkit` command's subcommands, each with its usage, its words and every option, read at build
time from the parser the command itself runs (lessonkit.cli.parser()), so the manual never retypes one.

    ```{commands}
    id: commands
    of: build          # optional: one command (default: every one, in the order `lessonkit --help` lists them)
    ```
"""

from __future__ import annotations

import argparse
from typing import Any

from lessonkit.blocks import BlockType, Context
from lessonkit.cli import parser
from lessonkit.content.schema import Fields, Key, Text, did_you_mean

SCHEMA = Fields({
    "of": Key(Text(r"[a-z]+", "a command's name", '"of: build"'),
              doc="one command to show (default: every one)"),
})


def option(action: argparse.Action) -> dict[str, Any]:
    """One argument as `--help` shows it: its spellings with its value's name, its words and its default."""
    if action.option_strings:
        takes = action.nargs != 0
        value = f" {action.metavar or action.dest.upper()}" if takes else ""
        if action.nargs == "?":
            value = f" [{(action.metavar or action.dest.upper())}]"
        names = [f"{name}{value}" for name in action.option_strings]
    else:
        names = [str(action.metavar or action.dest)]
    words = action.help or ""
    if "%(" in words:  # argparse's own placeholders, as --help fills them
        words = words % {**vars(action), "prog": "lessonkit"}
    return {"names": names, "help": words, "positional": not action.option_strings}


def commands() -> list[dict[str, Any]]:
    """`lessonkit` itself (its own options), then every subcommand, in its parser's order."""
    top = parser()
    out = [{"name": "", "usage": " ".join(top.format_usage().removeprefix("usage:").split()),
            "description": top.description or "",
            "arguments": [option(a) for a in top._actions if type(a).__name__ == "_VersionAction"]}]
    for name, sub in top.commands.items():
        usage = " ".join(sub.format_usage().removeprefix("usage:").split())
        arguments = [option(a) for a in sub._actions if not isinstance(a, argparse._HelpAction)]
        out.append({"name": name, "usage": usage, "description": sub.description or "", "arguments": arguments})
    return out


def build(ctx: Context) -> dict[str, Any] | None:
    """The commands to show, their words rendered as inline markdown."""
    found = commands()
    of = ctx.data.get("of")
    if of is not None:
        names = [c["name"] for c in found]
        if of not in names:
            ctx.error(f'"of: {of}" is no lessonkit command{did_you_mean(str(of), names)} — use one of: '
                      f"{', '.join(names)}", ctx.line("of"))
            return None
        found = [c for c in found if c["name"] == of]
    for command in found:
        command["anchor"] = f"{ctx.block.id}-{command['name'] or 'lessonkit'}"
        words = command["description"]
        command["description"] = ctx.inline(f"{words[:1].upper()}{words[1:].rstrip('.')}.") if words else ""
        for argument in command["arguments"]:
            argument["help"] = ctx.inline(argument["help"]) if argument["help"] else ""
    return {"commands": found}


BLOCK = BlockType("commands", "the lessonkit command's subcommands and their options, from the command's own parser",
                  SCHEMA, build, example_order=220)
