"""The one error type of the file readers: it names the file, the line and what is wrong."""

from __future__ import annotations


class ModelFileError(ValueError):
    """A model file that cannot be read; ``str()`` gives ``path:line: message``."""

    def __init__(self, path: str, message: str, line: int | None = None) -> None:
        self.path = path
        self.line = line
        self.message = message
        where = f"{path}:{line}" if line is not None else path
        super().__init__(f"{where}: {message}")

    def __reduce__(self) -> tuple[type, tuple[str, str, int | None]]:
        # Picklable, so errors found in worker processes reach the parent intact.
        return (type(self), (self.path, self.message, self.line))


class UnsupportedModelError(ValueError):
    """A model feature a target (file format, solver) cannot represent."""
