"""The dev server's build state, which open pages long-poll (/__lessonkit/events): an epoch that changes with every
good build (the page reloads) and a sequence number that changes with every report (the page shows its problems)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

LONG_POLL_SECONDS = 25.0


class DevState:
    """Build state shared with open pages: `epoch` changes on every good build, `seq` on every report."""

    def __init__(self, on_epoch: Callable[[int], object] | None = None) -> None:
        # Start from the clock so a restarted server never reuses an epoch an open page already has.
        self.epoch = int(time.time() * 1000)
        self._on_epoch = on_epoch  # called with each new epoch, after pages waiting on it are woken
        self.seq = 0
        self.problems: list[str] = []
        self._closed = False
        self._cond = threading.Condition()

    def snapshot(self) -> dict[str, Any]:
        """Current state as the JSON body of `/__lessonkit/events`."""
        with self._cond:
            return {"epoch": self.epoch, "seq": self.seq, "problems": list(self.problems)}

    def publish(self, problems: list[str]) -> dict[str, Any]:
        """Report a rebuild: no problems = new epoch (pages reload); problems = banner, old site kept."""
        with self._cond:
            if not problems:
                self.epoch += 1
            self.problems = list(problems)
            self.seq += 1
            self._cond.notify_all()
            epoch = self.epoch
        if not problems and self._on_epoch is not None:
            self._on_epoch(epoch)
        return self.snapshot()

    def wait(self, epoch: int | None, seq: int | None, timeout: float = LONG_POLL_SECONDS) -> dict[str, Any]:
        """Block until the state differs from what the page has seen (or timeout), then return it."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while not self._closed and epoch == self.epoch and seq == self.seq:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    break
                self._cond.wait(remaining)
        return self.snapshot()

    def close(self) -> None:
        """Release every waiting long-poll (server shutting down)."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()
