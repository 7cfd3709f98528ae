# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The LP fast path in C (a compiled accelerator, optional): a whole file to canonical arrays.

``scan`` takes the strict core of the fast path's dialect (ASCII, every row named, linear terms
``[sign] [number] name``, comments only above the first section, bounds and declarations as
the fast path reads them, no repeated entry in a row) and returns the model's arrays in the
canonical form :class:`~ortrex.ir.canonical.CanonicalModel` keeps, checked as it checks them;
anything else returns None and the Python fast path reads the file. A model from here is
always the one the Python fast path (and the full reader) makes: the tests compare them.
"""

from cpython.bytes cimport PyBytes_FromStringAndSize
from cpython.unicode cimport PyUnicode_DecodeASCII
from libc.stdlib cimport free, realloc, strtod
from libc.math cimport isfinite
from libc.stdint cimport int32_t, int64_t, uint64_t
from libc.string cimport memcmp, memcpy, strlen

import numpy as np

from ortrex.ir.formats.lp_syntax import BIG, HEADERS

cdef double INF = float("inf")
cdef double _BIG = BIG
# Words the full reader may read as something else than a name (lp_fast._NOT_NAMES).
cdef const char* NOT_NAMES[13]
NOT_NAMES[:] = [b"inf", b"infinity", b"nan", b"free", b"subject", b"such", b"bounds",
                b"generals", b"integers", b"binaries", b"semi-continuous", b"semis", b"end"]
# Exact powers of ten: a mantissa below 2**53 times or over one of them is one rounding.
cdef double POW10[23]
POW10[:] = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14,
            1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22]

DEF LE = 0
DEF GE = 1
DEF EQ = 2


cdef struct Cursor:
    const char* s
    Py_ssize_t pos
    Py_ssize_t end


cdef inline bint _space(char c) nogil:
    return c == 32 or c == 9 or c == 10


cdef inline Py_ssize_t _next(Cursor* cur, Py_ssize_t* length) nogil:
    """Start of the next whitespace-delimited token (its length in ``length``), or -1."""
    cdef Py_ssize_t p = cur.pos, q
    while p < cur.end and _space(cur.s[p]):
        p += 1
    if p >= cur.end:
        cur.pos = p
        return -1
    q = p
    while q < cur.end and not _space(cur.s[q]):
        q += 1
    cur.pos = q
    length[0] = q - p
    return p


cdef inline bint _name_char(char c) nogil:
    """Not whitespace, not one of ``<>=+-*/^:\\[]`` (lp_syntax.NAME_RE's plain characters)."""
    return not (c == 60 or c == 62 or c == 61 or c == 43 or c == 45 or c == 42 or c == 47
                or c == 94 or c == 58 or c == 92 or c == 91 or c == 93 or _space(c))


cdef bint _valid_name(const char* t, Py_ssize_t n):
    """One name token the full reader reads as a name: ``(?![\\d.])`` then lp_syntax.NAME_RE,
    and no word it may read otherwise (lp_fast._NOT_NAMES)."""
    cdef Py_ssize_t i = 1
    cdef char c
    if n <= 0:
        return False
    c = t[0]
    if (c >= 48 and c <= 57) or c == 46 or not _name_char(c):
        return False
    while i < n:
        c = t[i]
        if _name_char(c):
            i += 1
        elif c == 91:  # "[": anything but "]" (and whitespace) up to the closing "]"
            i += 1
            while i < n and t[i] != 93:
                i += 1
            if i >= n:
                return False
            i += 1
        else:
            return False
    return not _not_name(t, n)


cdef bint _not_name(const char* t, Py_ssize_t n) nogil:
    """One of NOT_NAMES, in any case."""
    cdef Py_ssize_t i, k
    cdef const char* w
    if n < 3 or n > 15:
        return False
    for k in range(13):
        w = NOT_NAMES[k]
        if strlen(w) != <size_t>n:
            continue
        for i in range(n):
            if (t[i] | 32) != w[i]:  # ASCII letters and "-" (whose bit 5 is already set)
                break
        else:
            return True
    return False


cdef inline bint _number(const char* t, Py_ssize_t n, double* out) nogil:
    """A token float() reads whole as a decimal number (digits, ".", exponent), nothing else,
    with float()'s value: the correctly rounded one."""
    cdef Py_ssize_t i
    cdef char c = t[0]
    cdef char* stop
    cdef char buf[64]
    cdef uint64_t m = 0
    cdef int digits = 0, frac = 0
    cdef bint dot = False
    if not ((c >= 48 and c <= 57) or c == 46) or n >= 64:
        return False
    # Clinger's fast path: plain digits with at most one ".", a mantissa m < 2**53 and a
    # scale 10**k, k <= 22: m and 10**k are exact, so m / 10**k is one correct rounding.
    for i in range(n):
        c = t[i]
        if c >= 48 and c <= 57:
            if m >= 900719925474099ULL:  # one more digit could pass 2**53
                break
            m = m * 10 + <uint64_t>(c - 48)
            digits += 1
            frac += dot
        elif c == 46 and not dot:
            dot = True
        else:
            break
    else:
        if digits and frac <= 22:
            out[0] = <double>m / POW10[frac]
            return True
    for i in range(n):
        c = t[i]
        if not ((c >= 48 and c <= 57) or c == 46 or c == 101 or c == 69 or c == 43 or c == 45):
            return False
    memcpy(buf, t, n)
    buf[n] = 0
    # strtod rounds correctly, as float() does (over- and underflow alike); in a locale whose
    # decimal point is not "." it stops early and the file goes to the Python fast path.
    out[0] = strtod(buf, &stop)
    return stop == buf + n


cdef inline bint _inf_word(const char* t, Py_ssize_t n) nogil:
    cdef const char* w = b"infinity"
    cdef Py_ssize_t i
    if n != 3 and n != 8:
        return False
    for i in range(n):
        if (t[i] | 32) != w[i]:
            return False
    return True


cdef inline bint _value(const char* t, Py_ssize_t n, double sign, double* out) nogil:
    """A right-hand side: one sign at most (``sign`` from a separate token, or joined), then a
    number or an infinity word."""
    if n > 0 and (t[0] == 45 or t[0] == 43):
        if sign != 0.0:
            return False
        sign = -1.0 if t[0] == 45 else 1.0
        t += 1
        n -= 1
    if sign == 0.0:
        sign = 1.0
    if n <= 0:
        return False
    if _inf_word(t, n):
        out[0] = sign * INF
        return True
    if not _number(t, n, out):
        return False
    out[0] = sign * out[0]
    return True


cdef bint _value_at(Cursor* cur, Py_ssize_t p, Py_ssize_t n, double* out) nogil:
    """A value from the token at ``p`` on: a lone sign joined to the next token, or one token
    (the fast path's right-hand sides and bound values)."""
    cdef const char* t = cur.s + p
    cdef double sign = 0.0
    if _sign(t, n):
        sign = -1.0 if t[0] == 45 else 1.0
        p = _next(cur, &n)
        if p < 0:
            return False
        t = cur.s + p
    return _value(t, n, sign, out)


cdef inline int _sense(const char* t, Py_ssize_t n) nogil:
    """The comparison a token is (lp_syntax.SENSES), or -1."""
    if n == 1:
        if t[0] == 60:
            return LE
        if t[0] == 62:
            return GE
        if t[0] == 61:
            return EQ
    elif n == 2:
        if (t[0] == 60 and t[1] == 61) or (t[0] == 61 and t[1] == 60):
            return LE
        if (t[0] == 62 and t[1] == 61) or (t[0] == 61 and t[1] == 62):
            return GE
    return -1


cdef inline bint _sign(const char* t, Py_ssize_t n) nogil:
    return n == 1 and (t[0] == 45 or t[0] == 43)


cdef class _Model:
    """The variables by first appearance (found by a hash of their bytes in the file, so that a
    term makes no string), objective coefficients and row terms so far."""

    cdef const char* s  # the file's bytes, which every name points into
    cdef list names
    cdef double* obj
    cdef double* lb
    cdef double* ub
    cdef char* types
    cdef Py_ssize_t* name_at
    cdef Py_ssize_t* name_len
    cdef Py_ssize_t n_vars, cap_vars
    cdef Py_ssize_t* table  # open addressing: a variable's index, or -1
    cdef Py_ssize_t mask
    cdef int64_t* a_rows
    cdef int64_t* a_cols
    cdef double* a_vals
    cdef Py_ssize_t nnz, cap_nnz
    cdef double* rlo
    cdef double* rhi
    cdef Py_ssize_t n_rows, cap_rows

    def __cinit__(self):
        self.names = []
        self.obj = self.lb = self.ub = NULL
        self.types = NULL
        self.name_at = self.name_len = self.table = NULL
        self.a_rows = self.a_cols = NULL
        self.a_vals = self.rlo = self.rhi = NULL
        self.n_vars = self.cap_vars = self.nnz = self.cap_nnz = self.n_rows = self.cap_rows = 0
        self.mask = -1

    def __dealloc__(self):
        free(self.obj)
        free(self.lb)
        free(self.ub)
        free(self.types)
        free(self.name_at)
        free(self.name_len)
        free(self.table)
        free(self.a_rows)
        free(self.a_cols)
        free(self.a_vals)
        free(self.rlo)
        free(self.rhi)

    cdef int rehash(self, Py_ssize_t size) except -1:
        cdef Py_ssize_t i, k
        cdef uint64_t h
        free(self.table)
        self.table = NULL
        self.table = <Py_ssize_t*>_grow(NULL, size * sizeof(Py_ssize_t))
        self.mask = size - 1
        for i in range(size):
            self.table[i] = -1
        for k in range(self.n_vars):
            h = _hash(self.s + self.name_at[k], self.name_len[k])
            i = <Py_ssize_t>(h & <uint64_t>self.mask)
            while self.table[i] >= 0:
                i = (i + 1) & self.mask
            self.table[i] = k
        return 0

    cdef Py_ssize_t var(self, const char* t, Py_ssize_t n) except -2:
        """The index of the name ``t``, a new one if it is a valid name; -1 if it is not."""
        cdef uint64_t h = _hash(t, n)
        cdef Py_ssize_t i = <Py_ssize_t>(h & <uint64_t>self.mask), k, cap
        cdef str name
        if self.mask >= 0:
            while True:
                k = self.table[i]
                if k < 0:
                    break
                if self.name_len[k] == n and memcmp(self.s + self.name_at[k], t, n) == 0:
                    return k
                i = (i + 1) & self.mask
        if not _valid_name(t, n):
            return -1
        if self.n_vars == self.cap_vars:
            cap = max(64, 2 * self.cap_vars)
            self.obj = <double*>_grow(self.obj, cap * sizeof(double))
            self.lb = <double*>_grow(self.lb, cap * sizeof(double))
            self.ub = <double*>_grow(self.ub, cap * sizeof(double))
            self.types = <char*>_grow(self.types, cap)
            self.name_at = <Py_ssize_t*>_grow(self.name_at, cap * sizeof(Py_ssize_t))
            self.name_len = <Py_ssize_t*>_grow(self.name_len, cap * sizeof(Py_ssize_t))
            self.cap_vars = cap
        k = self.n_vars
        self.obj[k] = 0.0  # the builder's defaults: continuous in [0, inf)
        self.lb[k] = 0.0
        self.ub[k] = INF
        self.types[k] = 67  # "C"
        self.name_at[k] = t - self.s
        self.name_len[k] = n
        name = PyUnicode_DecodeASCII(<char*>t, n, NULL)
        self.names.append(name)
        self.n_vars += 1
        if 2 * self.n_vars > self.mask + 1:  # at most half full
            self.rehash(max(256, 4 * (self.mask + 1)))
        else:
            self.table[i] = k
        return k

    cdef int term(self, int64_t row, int64_t col, double val) except -1:
        cdef Py_ssize_t cap
        if self.nnz == self.cap_nnz:
            cap = max(256, 2 * self.cap_nnz)
            self.a_rows = <int64_t*>_grow(self.a_rows, cap * sizeof(int64_t))
            self.a_cols = <int64_t*>_grow(self.a_cols, cap * sizeof(int64_t))
            self.a_vals = <double*>_grow(self.a_vals, cap * sizeof(double))
            self.cap_nnz = cap
        self.a_rows[self.nnz] = row
        self.a_cols[self.nnz] = col
        self.a_vals[self.nnz] = val
        self.nnz += 1
        return 0


    cdef int row(self, double lo, double hi) except -1:
        cdef Py_ssize_t cap
        if self.n_rows == self.cap_rows:
            cap = max(64, 2 * self.cap_rows)
            self.rlo = <double*>_grow(self.rlo, cap * sizeof(double))
            self.rhi = <double*>_grow(self.rhi, cap * sizeof(double))
            self.cap_rows = cap
        self.rlo[self.n_rows] = lo
        self.rhi[self.n_rows] = hi
        self.n_rows += 1
        return 0


cdef inline uint64_t _hash(const char* t, Py_ssize_t n) nogil:
    """FNV-1a of the name's bytes."""
    cdef uint64_t h = 14695981039346656037ULL
    cdef Py_ssize_t i
    for i in range(n):
        h = (h ^ <unsigned char>t[i]) * 1099511628211ULL
    return h


cdef void* _grow(void* p, size_t size) except NULL:
    cdef void* q = realloc(p, size)
    if q == NULL:
        raise MemoryError()
    return q


cdef int _past_sign(Cursor* cur, Py_ssize_t* p, Py_ssize_t* n, bint* neg) nogil:
    """Past a lone "+" or "-" at ``p`` (``neg`` says which): 1, or 0 (no sign: ``neg`` False),
    or -1 when nothing follows it."""
    cdef const char* t = cur.s + p[0]
    neg[0] = False
    if not _sign(t, n[0]):
        return 0
    neg[0] = t[0] == 45
    p[0] = _next(cur, n)
    return -1 if p[0] < 0 else 1


cdef Py_ssize_t _term(_Model m, Cursor* cur, Py_ssize_t p, Py_ssize_t n, bint neg,
                      double* coef) except -2:
    """``[number] name`` from the token at ``p`` on: the variable (and its coefficient, signed
    by ``neg``), or -1 where the fast path refuses."""
    cdef const char* t = cur.s + p
    if t[0] < 58:  # a number: float() of it, or the fast path refuses the file
        if not _number(t, n, coef):
            return -1
        if neg:
            coef[0] = -coef[0]
        p = _next(cur, &n)
        if p < 0:
            return -1
        t = cur.s + p
    else:
        coef[0] = -1.0 if neg else 1.0
    return m.var(t, n)


cdef bint _objective(_Model m, Cursor* cur):
    """``[label:] [sign] [number] name {sign [number] name}`` into the objective."""
    cdef Py_ssize_t p, n, k
    cdef const char* t
    cdef bint first = True, neg
    cdef int signed
    cdef double coef
    p = _next(cur, &n)
    if p < 0:
        return True
    t = cur.s + p
    if t[n - 1] == 58:  # "label:"
        if not _valid_name(t, n - 1):
            return False
        p = _next(cur, &n)
    while p >= 0:
        signed = _past_sign(cur, &p, &n, &neg)
        if signed < 0 or (not signed and not first):
            return False
        first = False
        k = _term(m, cur, p, n, neg, &coef)
        if k < 0:
            return False
        m.obj[k] = m.obj[k] + coef  # repeated terms add up, as the builder's dict does
        p = _next(cur, &n)
    return True


cdef bint _rows(_Model m, Cursor* cur, list row_names):
    """``label: [sign] [number] name {sign [number] name} sense [sign] value`` per row."""
    cdef Py_ssize_t p, n, k
    cdef const char* t
    cdef bint neg
    cdef int signed
    cdef double coef, v
    cdef int sense
    p = _next(cur, &n)
    while p >= 0:
        t = cur.s + p
        if n < 2 or t[n - 1] != 58 or not _valid_name(t, n - 1):
            return False  # an unnamed row (or a bad label): the fast path names it
        label = t[:n - 1].decode("ascii")
        p = _next(cur, &n)
        if p < 0:
            return False
        t = cur.s + p
        sense = _sense(t, n)
        if sense < 0:  # terms first
            if _past_sign(cur, &p, &n, &neg) < 0:
                return False
            while True:
                k = _term(m, cur, p, n, neg, &coef)
                if k < 0:
                    return False
                m.term(m.n_rows, k, coef)  # the row m.row() adds below
                p = _next(cur, &n)
                if p < 0:
                    return False
                signed = _past_sign(cur, &p, &n, &neg)
                if signed < 0:
                    return False
                if not signed:
                    break
            t = cur.s + p
            sense = _sense(t, n)
            if sense < 0:
                return False
        p = _next(cur, &n)
        if p < 0 or not _value_at(cur, p, n, &v):
            return False
        # lp_syntax.bounds_from(sense, v, flipped=False)
        if sense == LE:
            m.row(-INF, INF if v >= _BIG else v)
        elif sense == GE:
            m.row(-INF if v <= -_BIG else v, INF)
        else:
            m.row(v, v)
        row_names.append(label)
        p = _next(cur, &n)
    return True


cdef struct Item:
    char kind  # "S" a comparison, "V" a value, "N" a name
    int sense
    double value
    Py_ssize_t at, n  # a name's bytes


cdef int _item(Cursor* cur, Item* it) except -2:
    """The next bound item as the fast path classifies it (a lone sign joined to the next
    token): 1, or 0 at the end, or -1 where the fast path refuses."""
    cdef Py_ssize_t p, n
    cdef const char* t
    p = _next(cur, &n)
    if p < 0:
        return 0
    t = cur.s + p
    if _sign(t, n):
        it.kind = 86
        return 1 if _value_at(cur, p, n, &it.value) else -1
    it.sense = _sense(t, n)
    if it.sense >= 0:
        it.kind = 83
        return 1
    if (t[0] >= 48 and t[0] <= 57) or t[0] == 46 or t[0] == 43 or t[0] == 45 or _inf_word(t, n):
        it.kind = 86
        return 1 if _value(t, n, 0.0, &it.value) else -1
    it.kind = 78
    it.at = p
    it.n = n
    return 1


cdef inline bint _set_bound(_Model m, Py_ssize_t k, int sense, double v):
    """lp_syntax.set_bound: False for a fix at an infinite value."""
    if sense == LE:
        m.ub[k] = INF if v >= _BIG else v
    elif sense == GE:
        m.lb[k] = -INF if v <= -_BIG else v
    else:
        if v >= _BIG or v <= -_BIG:
            return False
        m.lb[k] = v
        m.ub[k] = v
    return True


cdef int _flipped(int sense) nogil:
    return GE if sense == LE else LE if sense == GE else EQ


cdef bint _free(const char* t, Py_ssize_t n) nogil:
    cdef const char* w = b"free"
    cdef Py_ssize_t i
    if n != 4:
        return False
    for i in range(4):
        if (t[i] | 32) != w[i]:
            return False
    return True


cdef bint _bounds(_Model m, Cursor* cur):
    """``x <= v``, ``x >= v``, ``x = v``, ``x free``, ``v <= x [<= w]``, as the fast path."""
    cdef Item items[3]
    cdef Item extra[2]
    cdef int got
    cdef Py_ssize_t k
    # Items come one at a time; a look-ahead of up to two is all the grammar needs.
    got = _item(cur, &items[0])
    while got == 1:
        if items[0].kind == 78:  # N: "x free" or "x S V"
            k = m.var(cur.s + items[0].at, items[0].n)
            if k < 0:
                return False
            got = _item(cur, &items[1])
            if got < 0:
                return False
            if got == 1 and items[1].kind == 78 and _free(cur.s + items[1].at, items[1].n):
                m.lb[k] = -INF
                m.ub[k] = INF
                got = _item(cur, &items[0])
                continue
            if got == 0 or items[1].kind != 83 or _item(cur, &items[2]) != 1 \
                    or items[2].kind != 86 or not _set_bound(m, k, items[1].sense,
                                                              items[2].value):
                return False
            got = _item(cur, &items[0])
            continue
        if items[0].kind != 86 or _item(cur, &items[1]) != 1 or items[1].kind != 83 \
                or _item(cur, &items[2]) != 1 or items[2].kind != 78:
            return False
        k = m.var(cur.s + items[2].at, items[2].n)
        if k < 0 or not _set_bound(m, k, _flipped(items[1].sense), items[0].value):
            return False
        got = _item(cur, &items[0])
        if got == 1 and items[0].kind == 83:  # "v <= x <= w"
            if _item(cur, &extra[0]) != 1 or extra[0].kind != 86 \
                    or not _set_bound(m, k, items[0].sense, extra[0].value):
                return False
            got = _item(cur, &items[0])
    return got == 0


cdef bint _declare(_Model m, Cursor* cur, bint binary):
    """Generals (integer) or Binaries (clipped to [0, 1] as Python's max and min do)."""
    cdef Py_ssize_t p, n, k
    p = _next(cur, &n)
    while p >= 0:
        k = m.var(cur.s + p, n)
        if k < 0:
            return False
        if binary:
            m.types[k] = 66  # "B"
            if 0.0 > m.lb[k]:
                m.lb[k] = 0.0
            if 1.0 < m.ub[k]:
                m.ub[k] = 1.0
        else:
            m.types[k] = 73  # "I" (no semi-continuous variable gets here)
        p = _next(cur, &n)
    return True


cdef object _header(const char* s, Py_ssize_t a, Py_ssize_t e):
    """The section kind of a first-column line (lp_syntax.HEADERS), or None."""
    cdef list words = s[a:e].decode("ascii").split()
    return HEADERS.get(" ".join(words).lower()) if 0 < e - a <= 64 else None


def scan(str text):
    """(name, sense, var_names, var_types, lb, ub, obj, row_names, row_lower, row_upper, indptr,
    indices, data) for a file in the strict common dialect; None for any other file."""
    cdef bytes data
    try:
        data = text.encode("ascii")
    except UnicodeEncodeError:
        return None
    cdef const char* s = data
    cdef Py_ssize_t n = len(data), i, a, e, j
    cdef unsigned char c
    for i in range(n):
        c = s[i]
        if (c < 32 and c != 9 and c != 10) or c == 127 or c == 92 and i > 0 and s[i - 1] != 10:
            return None  # control characters, a backslash that is no first-column comment
    # Sections: (kind, body start, body end) from the first-column lines.
    cdef list sections = []
    cdef str name = ""
    cdef object kind
    a = 0
    while a < n:
        e = a
        while e < n and s[e] != 10:
            e += 1
        c = s[a] if a < e else 32
        if c == 92:  # a comment: only above the first section
            if sections:
                return None
            if not name:
                line = s[a + 1:e].decode("ascii").strip()
                if line.startswith("Model "):
                    name = line[6:].strip()
        elif c != 32 and c != 9:  # a header
            kind = _header(s, a, e)
            if kind is None or kind == "semi":
                return None
            if sections:
                sections[len(sections) - 1][2] = a  # (no wraparound here)
            if kind == "end":
                break
            sections.append([kind, e + 1, n])
        elif not sections:  # an indented line above the first section: blank or refused
            for j in range(a, e):
                if s[j] != 32 and s[j] != 9:
                    return None
        a = e + 1
    if not sections or sections[0][0] not in ("min", "max"):
        return None
    cdef _Model m = _Model()
    m.s = s
    cdef Cursor cur
    cdef list row_names = []
    cur.s = s
    for k, sec in enumerate(sections):
        kind = sec[0]
        cur.pos = sec[1]
        cur.end = min(<Py_ssize_t>sec[2], n)
        if kind in ("min", "max"):
            if k or not _objective(m, &cur):
                return None
        elif kind == "rows":
            if not _rows(m, &cur, row_names):
                return None
        elif kind == "bounds":
            if not _bounds(m, &cur):
                return None
        elif kind in ("generals", "binaries"):
            if not _declare(m, &cur, kind == "binaries"):
                return None
        else:
            return None
    return _finish(m, name, sections[0][0], row_names)


cdef inline bint _bad_range(double lo, double hi) nogil:
    """What CanonicalModel refuses: lo > hi, lo = +inf, hi = -inf."""
    return not (lo <= hi and lo < INF and hi > -INF)


cdef object _finish(_Model m, str name, str sense, list row_names):
    """The canonical arrays (rows sorted by column, zeros dropped, -0.0 as 0.0, the index
    dtype CanonicalModel picks), or None where the model is invalid or a row repeats a variable
    (the Python path then raises or sums as the builder does)."""
    cdef Py_ssize_t nv = m.n_vars, nr = m.n_rows, k, r, p, q, start, kept
    cdef int32_t c
    cdef double v
    if nv >= 2**31 - 1 or nr >= 2**31 - 1 or m.nnz >= 2**31 - 1:
        return None
    for k in range(nv):
        if _bad_range(m.lb[k], m.ub[k]) or not isfinite(m.obj[k]):
            return None
        if m.types[k] == 66 and not (m.lb[k] >= 0.0 and m.ub[k] <= 1.0):
            return None
        m.lb[k] += 0.0
        m.ub[k] += 0.0
        m.obj[k] += 0.0
    for r in range(nr):
        if _bad_range(m.rlo[r], m.rhi[r]):
            return None
        m.rlo[r] += 0.0
        m.rhi[r] += 0.0
    indptr = bytearray((nr + 1) * 4)
    indices = bytearray(m.nnz * 4)
    data = bytearray(m.nnz * 8)
    cdef int32_t* ip = <int32_t*><char*>indptr
    cdef int32_t* ix = <int32_t*><char*>indices if m.nnz else NULL
    cdef double* dv = <double*><char*>data if m.nnz else NULL
    # Terms come row by row; each row is sorted by column (insertion: rows are short and
    # mostly in order already).
    p = kept = 0
    ip[0] = 0
    for r in range(nr):
        start = kept
        while p < m.nnz and m.a_rows[p] == r:
            v = m.a_vals[p]
            if not isfinite(v):
                return None
            if v != 0.0:
                c = <int32_t>m.a_cols[p]
                q = kept
                while q > start and ix[q - 1] > c:
                    ix[q] = ix[q - 1]
                    dv[q] = dv[q - 1]
                    q -= 1
                if q > start and ix[q - 1] == c:
                    # A repeated entry (the builder sums them, in their order). A zero copy
                    # is dropped first here: adding 0.0 changes no sum, so that is the same.
                    return None
                ix[q] = c
                dv[q] = v + 0.0
                kept += 1
            p += 1
        ip[r + 1] = <int32_t>kept
    types = bytearray(nv * 4)  # UCS-4, as numpy's "<U1"
    cdef char* tp = <char*>types
    for k in range(nv):
        tp[4 * k] = m.types[k]
    return (name, sense, m.names,
            np.frombuffer(types, dtype="<U1"),
            _doubles(m.lb, nv), _doubles(m.ub, nv), _doubles(m.obj, nv),
            row_names, _doubles(m.rlo, nr), _doubles(m.rhi, nr),
            np.frombuffer(indptr, dtype=np.int32),
            np.frombuffer(indices, dtype=np.int32)[:kept],
            np.frombuffer(data, dtype=np.float64)[:kept])


cdef object _doubles(double* x, Py_ssize_t n):
    return np.frombuffer(PyBytes_FromStringAndSize(<char*>x, n * 8), dtype=np.float64)
