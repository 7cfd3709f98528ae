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


class UnsupportedFeatureError(ModelFileError):
    """A file that is well formed but uses what the IR does not hold (indicator or SOS
    constraints...): the file is fine, the model is unsupported."""

    def __init__(self, path: str, message: str, line: int | None = None,
                 feature: str = "") -> None:
        super().__init__(path, message, line)
        # What it is ("SOS constraints", "indicator constraints"...), for a caller to route
        # the file to a reader that holds it (gurobipy.read) without parsing the message.
        self.feature = feature

    def __reduce__(self) -> tuple[type, tuple[str, str, int | None, str]]:  # type: ignore[override]
        return (type(self), (self.path, self.message, self.line, self.feature))


class UnsupportedModelError(ValueError):
    """A model feature a target (file format, solver) cannot represent."""


class ModelFileWarning(UserWarning):
    """What a reader did with a file that the solvers read with a warning (a repeated entry
    kept once, an entry for an undeclared row ignored...): one per file, ``path: what``."""


class Notes:
    """A reader's warnings about one file, counted by kind, issued as one warning line."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.kinds: dict[str, tuple[int, int | None, str]] = {}  # kind -> (count, line, example)

    def add(self, kind: str, line: int | None, example: str) -> None:
        """Note one more occurrence of ``kind`` (the first one's line and words are kept)."""
        n, first, ex = self.kinds.get(kind, (0, line, example))
        self.kinds[kind] = (n + 1, first, ex)

    def issue(self) -> None:
        """One ``ModelFileWarning`` summing everything noted (none if nothing was)."""
        import warnings

        if not self.kinds:
            return
        parts = []
        for kind, (n, line, example) in self.kinds.items():
            where = f"line {line}: " if line is not None else ""
            parts.append(f"{kind} ({n}x; first {where}{example})" if n > 1 else
                         f"{kind} ({where}{example})")
        warnings.warn(ModelFileWarning(f"{self.path}: " + "; ".join(parts)), stacklevel=3)
