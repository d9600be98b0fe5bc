"""Ralph's xAPI API (`ralph.api:app`) on its file-system backend, appending each statement to the store's file.

Ralph 5.1's file-system LRS backend writes new statements with the data backend's default operation, CREATE, which
refuses a file that exists: the first statement is stored and every later POST answers 500 ("Statements bulk
indexation failed"). Statements are only ever added, so this writes them with APPEND. Run it as uvicorn's app
(`python -m uvicorn ralph_fs:app`) with Ralph's own settings in the environment (RALPH_RUNSERVER_BACKEND=fs, …).
"""

from __future__ import annotations

from typing import Any

from ralph.backends.data.base import BaseOperationType
from ralph.backends.lrs.fs import FSLRSBackend

_write = FSLRSBackend.write


def _append(self: FSLRSBackend, data: Any, target: str | None = None, chunk_size: int | None = None,
            ignore_errors: bool = False, operation_type: BaseOperationType | None = None) -> int:
    if operation_type in (None, BaseOperationType.CREATE, BaseOperationType.INDEX):
        operation_type = BaseOperationType.APPEND
    return _write(self, data, target, chunk_size, ignore_errors, operation_type)


FSLRSBackend.write = _append  # type: ignore[method-assign]

from ralph.api import app  # noqa: E402  (after the backend writes by appending)

__all__ = ["app"]
