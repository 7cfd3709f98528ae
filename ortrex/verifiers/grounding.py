"""The numbers a problem statement gives, and whether a model's number is one of them or what
an honest modeller derives from them.

A number is *grounded* when it is (up to sign, which row orientation and min/max conversion
change freely) a number of the statement or its data files, a percentage or per-cent of one,
a unit factor, a small counting constant, one of those scaled or shifted by a unit factor or
counting constant, the sum, difference, product or ratio of two stated numbers, or an
aggregate of a data list (its sum; the dot product of two lists of one length: a total
weighted cost). Everything else (the answer typed in, a big-M, a bound nobody stated) is
*ungrounded*; whether the optimum rests on an ungrounded number is decided by re-solving the
model with it loosened (``verifiers.dependence``), not here.

The statement's *data* are its numbers that are not part of a name (``WO1``, ``x_2``): an
honest model uses them, a model that types its answer in does not (``coverage``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

# Factors between units an honest model converts with although the statement never writes
# them: minutes and seconds, hours a day, days a week / month / year, weeks and months a year,
# metric prefixes, per cent.
UNIT_FACTORS = (60.0, 3600.0, 24.0, 7.0, 30.0, 52.0, 12.0, 365.0, 100.0, 1000.0, 1e6)
SMALL = (1.0, 2.0, 3.0, 4.0, 5.0, 10.0, 0.5)  # counting constants and halves
_WORDS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60,
    "seventy": 70, "eighty": 80, "ninety": 90, "hundred": 100, "thousand": 1000,
    "million": 1e6, "billion": 1e9, "once": 1, "twice": 2, "thrice": 3, "double": 2,
    "triple": 3, "quadruple": 4, "half": 0.5, "third": 1 / 3, "quarter": 0.25, "dozen": 12,
    "pair": 2, "single": 1, "fourth": 0.25, "fifth": 0.2, "tenth": 0.1,
}
_SCALES = {"thousand": 1e3, "k": 1e3, "million": 1e6, "m": 1e6, "mn": 1e6, "billion": 1e9,
           "bn": 1e9, "b": 1e9}
_NUMBER = re.compile(r"(?<![\d.])(\d[\d,]*(?:\.\d+)?|\.\d+)(?:[eE]([-+]?\d+))?"
                     r"(?:\s*(thousand|million|billion|bn|mn|k|m|b)\b)?", re.I)
_FRACTION = re.compile(r"(?<![\d.])(\d+)\s*/\s*(\d+)(?![\d.])")
_WORD = re.compile(r"[A-Za-z]+")
_ROW = re.compile(r"^\s*\|(.+)\|\s*$")
_FENCED_JSON = re.compile(r"```json[ \t]*\n(.*?)```", re.S)
_NAMED = re.compile(r"[A-Za-z_]")  # a number right after a letter is part of a name (WO1, x_2)
REL_TOL = 1e-6  # a model's number and a derived one agree to six digits (the contract's rule)
MAX_LISTS = 64  # data lists whose dot products are aggregates (pairs of them: 2,016)


def _plain(token: str) -> list[float]:
    """The numbers of one digit token: ``1,234.5`` is one number, ``3,4,5`` three."""
    parts = token.split(",")
    if len(parts) > 1 and all(len(p) == 3 for p in parts[1:-1]) and \
            len(parts[-1].split(".")[0]) == 3 and parts[0]:
        return [float(token.replace(",", ""))]
    return [float(p) for p in parts if p and p != "."]


# Numbers that cite rather than state: pages and copyright years ("pp. 266-267, 320-321",
# "© 2020"), the whole list after the word.
_CITED = re.compile(r"(?:\bpp?\.|\bpages?\b|©|\(c\)|\bcopyright\b)"
                    r"(?:\s*(?:\d+|[-–,]|and\b))+", re.I)
# Comment lines of a model file a program reads (MPS ``*``, LP ``\``): its header counts
# rows and columns, it states no datum.
_MODEL_FILE = (".mps", ".lp", ".mps.gz", ".lp.gz", ".mps.bz2", ".lp.bz2", ".mof.json")
_MODEL_COMMENT = re.compile(r"^\s*[*\\].*$", re.M)


def _model_file_numbers(name: str, body: str) -> list[float] | None:
    """The numbers of a model file a program reads (coefficients, sides, bounds), read as a
    model: its column names (``0001``) and header counts are no data. None: unreadable."""
    import warnings

    from ortrex.ir.formats import detect_format, loads

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            m = loads(body, detect_format(name, body), name)
    except Exception:  # a file the readers refuse is read as text
        return None
    parts = [m.A.data, m.obj, m.row_lower, m.row_upper, m.lb, m.ub, [m.obj_constant]]
    vals = np.concatenate([np.asarray(p, dtype=np.float64) for p in parts])
    return [float(x) for x in np.unique(vals[np.isfinite(vals) & (vals != 0)])]


def _tokens(chunk: str) -> Iterator[tuple[float, bool]]:
    """(number, whether it is a datum) for every number of a text: digits with their scale
    word (``1.5 million`` is also 1.5e6), fractions, number words."""
    cited = [m.span() for m in _CITED.finditer(chunk)]
    for m in _NUMBER.finditer(chunk):
        try:
            values = _plain(m.group(1))
        except ValueError:
            continue
        a = m.start()
        if any(lo <= a < hi for lo, hi in cited):
            continue
        datum = not (a and _NAMED.match(chunk[a - 1]))
        exp = 10.0 ** int(m.group(2)) if m.group(2) and abs(int(m.group(2))) < 300 else 1.0
        scale = _SCALES.get((m.group(3) or "").lower(), 1.0)
        for v in values:
            yield v * exp, datum
            if scale != 1.0:
                yield v * exp * scale, datum
    for a_, b_ in _FRACTION.findall(chunk):
        if float(b_):
            yield float(a_) / float(b_), False
    for w in map(str.lower, _WORD.findall(chunk)):
        if w in _WORDS:
            yield float(_WORDS[w]), False


def _is_num(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def _json_lists(obj: Any, out: list[list[float]]) -> None:
    """Every list of numbers in a JSON value (a list, or an object mapping names to numbers),
    the columns of its 2-D lists and tables among them."""
    if isinstance(obj, dict):
        vals = list(obj.values())
        if len(vals) > 1 and all(_is_num(v) for v in vals):
            out.append([float(v) for v in vals])
        rows = [v for v in vals if isinstance(v, dict)]
        if len(rows) == len(vals) > 1 and len({tuple(r) for r in rows}) == 1:
            for key in rows[0]:
                col = [r[key] for r in rows]
                if all(_is_num(v) for v in col):
                    out.append([float(v) for v in col])
        for v in vals:
            _json_lists(v, out)
    elif isinstance(obj, list):
        nums = [float(v) for v in obj if isinstance(v, int | float) and not isinstance(v, bool)]
        if len(nums) == len(obj) and len(nums) > 1:
            out.append(nums)
        rows = [r for r in obj if isinstance(r, list)]
        if len(rows) == len(obj) > 1 and len({len(r) for r in rows}) == 1:
            for col in zip(*rows, strict=True):
                if all(isinstance(v, int | float) and not isinstance(v, bool) for v in col):
                    out.append([float(v) for v in col])
        for v in obj:
            _json_lists(v, out)


def data_lists(text: str, files: Mapping[str, str | bytes] | None = None,
               prose: bool = True) -> list[list[float]]:
    """The lists of numbers a problem's data holds: JSON lists (and the columns of 2-D lists),
    CSV and markdown table columns and rows, and (``prose``) the data of each line of text."""
    out: list[list[float]] = []
    chunks = [text, *(v.decode("utf-8", "replace") if isinstance(v, bytes) else v
                      for v in (files or {}).values())]
    inline = [(f"inline{k}.json", b) for k, b in enumerate(_FENCED_JSON.findall(text))]
    for name, body in [("", text), *inline, *((n, c) for n, c in zip(files or {}, chunks[1:],
                                                                       strict=True))]:
        if name.endswith(".json"):
            try:
                _json_lists(json.loads(body), out)
                continue
            except ValueError:
                pass
        table: list[list[float]] = []
        for line in body.splitlines():
            cells = _ROW.match(line)
            parts = cells.group(1).split("|") if cells else \
                (line.split(",") if name.endswith(".csv") else None)
            if parts is not None:
                row = []
                for p in parts:
                    got = [v for v, d in _tokens(p) if d]
                    row.append(got[0] if len(got) == 1 else None)
                table.append(row)
            got = [v for v, d in _tokens(line) if d]
            if prose and len(got) > 2 and parts is None:  # a sentence: one attribute of each
                out.append(got)
        width = max((len(r) for r in table), default=0)
        for c in range(width):
            col = [r[c] for r in table if c < len(r) and r[c] is not None]
            if len(col) > 1:
                out.append(col)  # type: ignore[arg-type]
    return out[:4 * MAX_LISTS]


def _sums(lists: list[list[float]]) -> np.ndarray:
    """The sum of each data list (a total capacity, a horizon)."""
    return np.unique(np.abs(np.array([sum(v) for v in lists], dtype=np.float64)))


def _dots(lists: list[list[float]]) -> np.ndarray:
    """Dot products of two data lists of one length (a total weighted duration)."""
    dots = []
    short = lists[:MAX_LISTS]
    for i, a in enumerate(short):
        for b in short[i:]:
            if len(a) == len(b):
                dots.append(float(np.dot(a, b)))
    return np.unique(np.abs(np.array(dots, dtype=np.float64)))


@dataclass(frozen=True)
class Grounds:
    """What a problem grounds: its stated numbers, its data and the aggregates of its lists."""

    stated: np.ndarray  # sorted unique absolute values of every number of the statement
    data: np.ndarray = field(default_factory=lambda: np.zeros(0))  # not part of a name
    aggregates: np.ndarray = field(default_factory=lambda: np.zeros(0))  # sums of data lists
    # Dot products of data lists: they ground an objective's constant only (an optimum is
    # often such a product itself: cost times demand, summed).
    totals: np.ndarray = field(default_factory=lambda: np.zeros(0))
    # Stated numbers that are no element of a table or list (a capacity, a count, a rate):
    # what an honest model combines (rooms x hours per room) where tables feed rows as given.
    scalars: np.ndarray | None = None

    @classmethod
    def of(cls, text: str, files: Mapping[str, str | bytes] | None = None) -> Grounds:
        """The grounds of a statement and its data files."""
        found: list[tuple[float, bool]] = []
        chunks = [text]
        for name, v in (files or {}).items():
            body = v.decode("utf-8", "replace") if isinstance(v, bytes) else v
            if name.lower().endswith(_MODEL_FILE):
                numbers = _model_file_numbers(name, body)
                if numbers is not None:  # its numbers are its model's, not its names
                    found.extend((x, True) for x in numbers)
                    continue
                body = _MODEL_COMMENT.sub("", body)
            chunks.append(body)
        for chunk in chunks:
            found.extend(_tokens(chunk))
        vals = np.abs(np.array([v for v, _ in found], dtype=np.float64))
        datum = np.array([d for _, d in found], dtype=bool)
        ok = np.isfinite(vals)
        data = vals[ok & datum]
        lists = data_lists(text, files)
        listed = {abs(v) for lst in data_lists(text, files, prose=False) for v in lst}
        stated = np.unique(vals[ok])
        scalars = stated[[v not in listed for v in stated.tolist()]] if listed else stated
        return cls(stated, np.unique(data[data > 0]), _sums(lists), _dots(lists), scalars)

    def to_lists(self) -> dict[str, list[float]]:
        """JSON-friendly (for a child process)."""
        return {k: getattr(self, k).tolist() for k in _FIELDS if getattr(self, k) is not None}

    @classmethod
    def from_lists(cls, d: Mapping[str, list[float]]) -> Grounds:
        """The inverse of :meth:`to_lists`."""
        return cls(*(np.array(d[k], dtype=np.float64) if k in d else None
                     for k in _FIELDS))

    @cached_property
    def base(self) -> np.ndarray:
        """Stated numbers and aggregates, their per-cent and percentage forms, unit factors
        and counting constants (sorted, unique)."""
        s = np.concatenate([self.stated, self.aggregates])
        s = s[np.isfinite(s)]
        return np.unique(np.concatenate([s, s / 100.0, s * 100.0, UNIT_FACTORS, SMALL]))

    @cached_property
    def _factors(self) -> np.ndarray:
        return np.unique(np.array([*UNIT_FACTORS, *SMALL]))

    @cached_property
    def _stated_nz(self) -> np.ndarray:
        s = np.concatenate([self.stated, self.stated / 100.0])
        return np.unique(s[s > 0])

    @cached_property
    def _operands(self) -> np.ndarray:
        s = self.stated
        return s[s > 0]

    @cached_property
    def _pair_pool(self) -> np.ndarray:
        return np.unique(np.concatenate([self._stated_nz, self.aggregates]))

    def stated_as_given(self, values: np.ndarray) -> bool:
        """Whether every value is a stated number as given (or as a percentage), underived."""
        v = np.abs(np.asarray(values, dtype=np.float64))
        s = np.unique(np.concatenate([self.stated, self.stated / 100.0, self.stated * 100.0]))
        return bool(v.size) and bool(self._in(v, s).all())

    @cached_property
    def evidence(self) -> np.ndarray:
        """The data numbers that tell a model of this problem from any other: not a unit
        factor or counting constant (a coefficient 1 or 60 is in every model)."""
        return self.data[~self._in(self.data, self._factors)]

    def used(self, values: np.ndarray) -> np.ndarray:
        """The ``evidence`` numbers ``values`` hold as given, as a percentage, or as one
        operand of a product, sum or difference of two data numbers (``w * h``, ``c - p``)."""
        v = np.abs(np.asarray(values, dtype=np.float64))
        v = np.unique(v[np.isfinite(v) & (v > 0)])
        v = v[~self._in(v, self._factors)]
        forms = np.unique(np.concatenate([v, v * 100.0, v / 100.0]))
        d = self.evidence
        hit = self._in(d, forms)
        e = self.data[:400]  # the pair check is quadratic in the data: 400 numbers at most
        for k in np.flatnonzero(~hit):
            hit[k] = bool(self._in(np.concatenate([d[k] * e, d[k] + e, np.abs(d[k] - e)]),
                                   forms).any())
        return d[hit]

    @staticmethod
    def _in(values: np.ndarray, pool: np.ndarray) -> np.ndarray:
        """Whether each value lies within the tolerance of a number of sorted ``pool``."""
        if not pool.size or not values.size:
            return np.zeros(values.shape, dtype=bool)
        k = np.clip(np.searchsorted(pool, values), 0, pool.size - 1)
        near = np.abs(pool[k] - values)
        near = np.minimum(near, np.abs(pool[np.maximum(k - 1, 0)] - values))
        return near <= REL_TOL * np.maximum(np.abs(values), 1e-3)

    def derived(self, values: np.ndarray, big: np.ndarray | None = None) -> np.ndarray:
        """For each value: whether it is derived from the base (a base number scaled or
        shifted by a unit factor or counting constant; the sum, difference, product or ratio
        of two stated numbers, one of them maybe an aggregate, or such a pair scaled by a
        factor; one of the model's own grounded numbers ``big`` plus or minus a stated number
        or factor)."""
        x = np.abs(np.asarray(values, dtype=np.float64))
        out = np.zeros(x.shape, dtype=bool)
        if not x.size:
            return out
        s, pool = self._operands, self._pair_pool
        xf = x[:, None] * _PAIR_SCALES  # n x 5: a pair, half or twice it, as a percentage
        out |= self.unary(x)
        chunk = max(1, 400_000 // max(1, xf.shape[1] * s.size))
        for a in range(0, x.size, chunk):
            block = xf[a:a + chunk][:, :, None]  # n x (1+2F) x S
            cand = np.stack([np.abs(block - s), block + s, block / s, block * s, s / block])
            out[a:a + chunk] |= self._in(cand, pool).reshape(5, block.shape[0], -1).any(
                axis=(0, 2))
        if big is not None and big.size:
            step = max(1, 400_000 // big.size)
            for a in range(0, x.size, step):
                block = x[a:a + step][:, None]
                cand = np.concatenate([np.abs(block - big), block + big], axis=1)
                out[a:a + step] |= self._in(cand, self._shift_pool).any(axis=1)
        return out

    def unary(self, values: np.ndarray, shifted: bool = True) -> np.ndarray:
        """For each value: whether it is a base number scaled by a unit factor (``hours x
        60``), or (``shifted``) scaled or shifted by a unit factor or counting constant
        (``4.5 x 2``, ``n - 1``)."""
        x = np.abs(np.asarray(values, dtype=np.float64))
        f = self._factors if shifted else np.array(UNIT_FACTORS)
        parts = [x[:, None] / f, x[:, None] * f]
        if shifted:
            parts += [np.abs(x[:, None] - f), x[:, None] + f]
        return self._in(np.concatenate(parts, axis=1), self.base).any(axis=1)

    @cached_property
    def _shift_pool(self) -> np.ndarray:
        return np.unique(np.concatenate([self._stated_nz, self._factors]))

    def specific(self, values: np.ndarray, big: np.ndarray | None = None) -> np.ndarray:
        """For each derived value: whether its derivation is evidence, i.e. the numbers of its
        precision around it are mostly not derivable too. (Where the data are small integers,
        every integer near a typed-in answer is the sum or product of two of them: deriving
        it proves nothing.) A value is also specific where it derives from the statement's
        scalars alone (``scalars``) and their derivations are sparse around it, however
        dense the derivations from its tables are."""
        x = np.abs(np.asarray(values, dtype=np.float64))
        if not x.size:
            return np.zeros(0, dtype=bool)
        out = self._sparse(x, big)
        sc = self._scalar_grounds
        rest = np.flatnonzero(~out)
        if sc is not None and rest.size:
            d = rest[sc.derived(x[rest], big) | sc.direct(x[rest])]
            out[d] = sc._sparse(x[d], big)
        return out

    @cached_property
    def _scalar_grounds(self) -> Grounds | None:
        if self.scalars is None or self.scalars.size == self.stated.size:
            return None
        return Grounds(self.scalars, self.data, self.aggregates, self.totals, None)

    def _sparse(self, x: np.ndarray, big: np.ndarray | None) -> np.ndarray:
        """Whether at most a quarter of each value's 20 neighbours derive as well. The
        neighbours are a step apart at the value's precision, or at its double's where
        coarser (half an integer answer, typed into a row of twos, is no decimal)."""
        if not x.size:
            return np.zeros(0, dtype=bool)
        step = np.array([max(_granularity(v), _granularity(2 * v) / 2)
                         for v in x.tolist()])
        step = np.maximum(step, 5 * REL_TOL * x)  # beyond the match tolerance
        offsets = np.concatenate([np.arange(-_GRID, 0), np.arange(1, _GRID + 1)])
        grid = x[:, None] + step[:, None] * offsets  # one row of neighbours per value
        inside = grid > 0
        flat = np.where(inside, grid, 1.0).ravel()
        hits = (self.derived(flat, big) | self._in(flat, self.base)).reshape(grid.shape)
        return (hits & inside).sum(axis=1) <= _DENSE * inside.sum(axis=1)

    def total(self, value: float) -> bool:
        """Whether ``value`` is a dot product of two data lists (an objective's constant)."""
        return bool(self._in(np.abs(np.array([value], dtype=np.float64)), self.totals)[0])

    def factor(self, values: np.ndarray) -> np.ndarray:
        """For each value: whether it is a unit factor or counting constant (or zero)."""
        v = np.abs(np.asarray(values, dtype=np.float64))
        return self._in(v, self._factors) | (v <= 1e-12)

    def direct(self, values: np.ndarray) -> np.ndarray:
        """For each value: whether it is a base number as given (or zero)."""
        v = np.abs(np.asarray(values, dtype=np.float64))
        return self._in(v, self.base) | (v <= 1e-12)

    def grounded(self, values: Iterable[float], model: np.ndarray | None = None) -> np.ndarray:
        """For each value: whether it is grounded (see the module docstring): a base number
        as given, or a derivation that is evidence (``specific``). ``model``: the grounded
        numbers of the model the values come from (``w * h - waste`` where ``w * h`` is a
        side of another row)."""
        v = np.abs(np.asarray(values if isinstance(values, np.ndarray) else list(values),
                              dtype=np.float64))
        big = None if model is None else np.unique(np.abs(model[np.abs(model) > 10]))
        ok = self.direct(v)
        rest = np.flatnonzero(~ok)
        d = self.derived(v[rest], big)
        ok[rest[d]] = self.specific(v[rest[d]], big)
        return ok


_FIELDS = ("stated", "data", "aggregates", "totals", "scalars")
_PAIR_SCALES = np.array([1.0, 0.5, 2.0, 100.0, 0.01])
_GRID, _DENSE = 10, 0.25  # 20 neighbours of a derived number; at most a quarter derivable


def _granularity(x: float) -> float:
    """The spacing of numbers written with ``x``'s decimals (``166.0``: 1; ``3.32``: 0.01)."""
    text = f"{x:.12g}"
    if "e" in text:
        mant, exp = text.split("e")
        decimals = len(mant.split(".")[1]) if "." in mant else 0
        return 10.0 ** (int(exp) - decimals)
    return 10.0 ** -(len(text.split(".")[1]) if "." in text else 0)
