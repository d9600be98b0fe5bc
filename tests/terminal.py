"""What a command started by a test gets from the author's or instructor's terminal."""

from __future__ import annotations

import signal


def ctrl_c_as_a_terminal_has_it() -> None:
    """For a child process (Popen's preexec_fn): SIGINT delivered and at its default, as in a terminal. A child
    inherits an ignored or blocked SIGINT from whatever ran before it in the test's process; Python then never raises
    KeyboardInterrupt, and the test's Ctrl+C would go unheard."""
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    signal.signal(signal.SIGINT, signal.SIG_DFL)
