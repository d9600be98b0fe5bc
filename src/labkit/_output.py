"""The run's streams: what the learner's code prints, batched into the writers under the output cap, and the
stdin and input() that say the lab has no keyboard. What labkit writes itself is worded by labkit._words."""

from __future__ import annotations

import io
import time
from collections.abc import Callable
from typing import Any

from labkit._limits import FLUSH_CHARS, FLUSH_SECONDS, OUTPUT_MESSAGES
from labkit._words import text as _words

Writer = Callable[[str], Any]


class _Sink:
    """Collects stdout/stderr in order, forwards batches, and enforces the output cap."""

    def __init__(self, write_out: Writer, write_err: Writer, max_chars: int, max_lines: int,
                 max_messages: int | None = OUTPUT_MESSAGES, flush_chars: int = FLUSH_CHARS) -> None:
        """max_messages: how many batches the writers may get for the capped text (None: any number); flush_chars:
        the pending characters that make a batch go out at once (0: every write goes out as it comes)."""
        self._writers = {"out": write_out, "err": write_err}
        self._flush_chars = flush_chars
        self._max_chars = max_chars
        self._max_lines = max_lines
        self._max_messages = max_messages
        self._pending: list[list[str]] = []  # [stream, text] runs, adjacent same-stream text merged
        self._pending_chars = 0
        # The first batch waits FLUSH_SECONDS too: a short run's output then reaches the page together with its
        # result, in one rendering frame instead of two (the benchmark's "Steady run" row is click to output).
        self._clock = time.monotonic  # taken now: the learner's code may replace time.monotonic
        self._last_flush = self._clock()
        self.chars = 0
        self.lines = 0
        self.messages = 0  # batches begun for the capped text (each reaches a writer as one call)
        self.truncated = False
        self.last_char = "\n"

    def write(self, stream: str, text: str) -> None:
        """Queue text for stream, cutting it at the cap."""
        if self.truncated or not text:
            return  # past the cap: keep running (so Stop works) but forward nothing
        cut = min(len(text), max(self._max_chars - self.chars, 0))
        room_lines = self._max_lines - self.lines
        if room_lines <= 0:
            cut = 0
        else:
            pos = -1
            for _ in range(room_lines):
                pos = text.find("\n", pos + 1, cut)
                if pos == -1:
                    break
            else:
                cut = pos + 1
        batches = self._max_messages is not None and cut and self._begins_batch(stream) \
            and self.messages >= self._max_messages
        if batches:
            cut = 0
        part = text[:cut]
        if part:
            self._queue(stream, part)
        if cut < len(text):
            self.truncated = True
            lead = "" if (part or self.last_char).endswith("\n") else "\n"
            stop = _words("lab.stop")
            notice = (_words("labkit.output_pieces", messages=self._max_messages or 0, stop=stop) if batches
                      else _words("labkit.output_limit", lines=self._max_lines, chars=self._max_chars, stop=stop))
            self._queue("err", f"{lead}{notice}\n", count=False)
            self.flush()
            return
        if self._pending_chars >= self._flush_chars or self._clock() - self._last_flush >= FLUSH_SECONDS:
            self.flush()

    def _begins_batch(self, stream: str) -> bool:
        """Whether text for stream now would go out as a message of its own."""
        return not (self._pending and self._pending[-1][0] == stream)

    def _queue(self, stream: str, text: str, *, count: bool = True) -> None:
        """Append text to the pending batch."""
        if count:
            self.chars += len(text)
            self.lines += text.count("\n")
            self.messages += self._begins_batch(stream)
        self.last_char = text[-1]
        if self._pending and self._pending[-1][0] == stream:
            self._pending[-1][1] += text
        else:
            self._pending.append([stream, text])
        self._pending_chars += len(text)

    def write_uncapped(self, stream: str, text: str) -> None:
        """Forward text (error reports) even after the cap, after what is already queued."""
        if text:
            if not self.last_char.endswith("\n"):
                text = "\n" + text
            self._queue(stream, text, count=False)
        self.flush()

    def flush(self) -> None:
        """Send pending text to the writers in order."""
        pending, self._pending, self._pending_chars = self._pending, [], 0
        self._last_flush = self._clock()
        for stream, text in pending:
            self._writers[stream](text)

    def drop_pending(self) -> None:
        """Forget what is not sent yet (when there is no memory left to send it)."""
        self._pending, self._pending_chars = [], 0


class _Stream(io.TextIOBase):
    """A text stream that feeds the sink (sys.stdout / sys.stderr stand-in)."""

    def __init__(self, sink: _Sink, stream: str) -> None:
        super().__init__()
        self._sink = sink
        self._stream = stream

    @property
    def encoding(self) -> str:  # type: ignore[override]
        """Report UTF-8 like a real console."""
        return "utf-8"

    def writable(self) -> bool:
        """Streams accept writes."""
        return True

    def isatty(self) -> bool:
        """Not a terminal."""
        return False

    def write(self, text: str) -> int:  # type: ignore[override]
        """Queue text."""
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        self._sink.write(self._stream, text)
        return len(text)

    def flush(self) -> None:
        """Nothing to do: batching is time based."""


class _NoInput(io.TextIOBase):
    """sys.stdin stand-in: reading explains that there is no keyboard."""

    def readable(self) -> bool:
        """Claims to be readable so reads reach read()/readline()."""
        return True

    def read(self, size: int | None = -1) -> str:  # type: ignore[override]
        """Refuse with the lab's message."""
        raise EOFError(_words("labkit.no_input"))

    def readline(self, size: int | None = -1) -> str:  # type: ignore[override]
        """Refuse with the lab's message."""
        raise EOFError(_words("labkit.no_input"))


def _no_input(prompt: object = "") -> str:
    """input() stand-in: there is no keyboard in the lab."""
    raise EOFError(_words("labkit.no_input"))
