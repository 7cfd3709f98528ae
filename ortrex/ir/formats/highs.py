"""Conversion between CanonicalModel and highspy.Highs (always passed as objects, never LP text)."""

from __future__ import annotations

import os
import threading
from typing import TYPE_CHECKING

import numpy as np

from ortrex.ir.canonical import CanonicalModel
from ortrex.ir.formats.builder import dedupe_names
from ortrex.ir.formats.errors import UnsupportedModelError

if TYPE_CHECKING:
    import highspy

_banner_lock = threading.Lock()
_banner_done = False


def new_highs() -> highspy.Highs:
    """A silent Highs instance (the one-time copyright banner goes to /dev/null)."""
    global _banner_done
    import highspy

    with _banner_lock:
        if not _banner_done:
            # HiGHS prints its banner from C++ on the first construction, before any option can
            # be set; silence file descriptor 1 just for that moment.
            saved = os.dup(1)
            try:
                with open(os.devnull, "w") as null:
                    os.dup2(null.fileno(), 1)
                    h = highspy.Highs()
            finally:
                os.dup2(saved, 1)
                os.close(saved)
            _banner_done = True
        else:
            h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    return h


def to_highs(model: CanonicalModel, names: bool = True) -> highspy.Highs:
    """A Highs instance holding ``model``; quadratic constraints are not supported by HiGHS.

    ``names=False`` skips the column and row names (solvers do not need them)."""
    import highspy
    import scipy.sparse as sp  # imported when used: reading files needs none

    if model.has_quadratic_rows:
        raise UnsupportedModelError("HiGHS does not support quadratic constraints")
    lp = highspy.HighsLp()
    n, m = model.num_vars, model.num_rows
    lp.num_col_, lp.num_row_ = n, m
    lp.col_cost_ = np.array(model.obj)
    lp.col_lower_ = np.array(model.lb)
    lp.col_upper_ = np.array(model.ub)
    lp.row_lower_ = np.array(model.row_lower)
    lp.row_upper_ = np.array(model.row_upper)
    lp.offset_ = model.obj_constant
    lp.sense_ = highspy.ObjSense.kMaximize if model.sense.value == "max" else \
        highspy.ObjSense.kMinimize
    # Passed row-wise as the model's canonical CSR arrays hold it (no scipy matrix built):
    # HiGHS stores it column-wise, sorted, the same matrix that scipy's tocsc gave (checked),
    # at a third less of the build's time.
    A = model.csr
    lp.a_matrix_.format_ = highspy.MatrixFormat.kRowwise
    lp.a_matrix_.num_col_, lp.a_matrix_.num_row_ = n, m
    lp.a_matrix_.start_ = A.indptr.astype(np.int32)
    lp.a_matrix_.index_ = A.indices.astype(np.int32)
    lp.a_matrix_.value_ = np.array(A.data)
    if model.is_mip:
        kinds = {"C": highspy.HighsVarType.kContinuous, "I": highspy.HighsVarType.kInteger,
                 "B": highspy.HighsVarType.kInteger,
                 "S": highspy.HighsVarType.kSemiContinuous,
                 "N": highspy.HighsVarType.kSemiInteger}
        bad = model.semi & ~np.isfinite(model.ub)
        if bad.any():
            raise UnsupportedModelError(
                f"semi variable {model.var_names[int(np.flatnonzero(bad)[0])]!r} has no finite "
                "upper bound (HiGHS needs one)")
        lp.integrality_ = [kinds[t] for t in model.var_types]
    if names:
        lp.col_names_ = list(model.var_names)
        lp.row_names_ = list(model.row_names)
    hm = highspy.HighsModel()
    hm.lp_ = lp
    qi, qj, qv = model.qobj
    if qi.size:
        # HiGHS minimises c'x + 1/2 x'Qx with the lower triangle of Q stored by column.
        vals = np.where(qi == qj, 2.0 * qv, qv)
        lower = sp.csc_matrix((vals, (qj, qi)), shape=(n, n))
        lower.sort_indices()
        hess = highspy.HighsHessian()
        hess.dim_ = n
        hess.format_ = highspy.HessianFormat.kTriangular
        hess.start_ = lower.indptr.astype(np.int32)
        hess.index_ = lower.indices.astype(np.int32)
        hess.value_ = np.array(lower.data)
        hm.hessian_ = hess
    h = new_highs()
    status = h.passModel(hm)
    if status == highspy.HighsStatus.kError:
        raise UnsupportedModelError("HiGHS rejected the model")
    return h


def from_highs(h: highspy.Highs) -> CanonicalModel:
    """A CanonicalModel of the model held by a Highs instance."""
    import highspy
    import scipy.sparse as sp  # imported when used: reading files needs none

    hm = h.getModel()
    lp = hm.lp_
    n, m = lp.num_col_, lp.num_row_
    mat = lp.a_matrix_
    data = (np.array(mat.value_), np.array(mat.index_), np.array(mat.start_))
    if mat.format_ == highspy.MatrixFormat.kColwise:
        A = sp.csc_matrix(data, shape=(m, n)).tocsr()
    else:
        A = sp.csr_matrix(data, shape=(m, n))
    types = ["C"] * n
    if len(lp.integrality_):
        kinds = {highspy.HighsVarType.kInteger: "I", highspy.HighsVarType.kSemiContinuous: "S",
                 highspy.HighsVarType.kSemiInteger: "N"}
        types = [kinds.get(t, "C") for t in lp.integrality_]
    col_names = list(lp.col_names_) or [f"x{j}" for j in range(n)]
    row_names = list(lp.row_names_) or [f"R{r}" for r in range(m)]
    qobj: tuple[np.ndarray, np.ndarray, np.ndarray] = (np.zeros(0), np.zeros(0), np.zeros(0))
    hess = hm.hessian_
    if hess.dim_:
        H = sp.csc_matrix((np.array(hess.value_), np.array(hess.index_), np.array(hess.start_)),
                          shape=(hess.dim_, hess.dim_)).tocoo()
        if hess.format_ == highspy.HessianFormat.kSquare:
            keep = H.row >= H.col
            H = sp.coo_matrix((H.data[keep], (H.row[keep], H.col[keep])), shape=H.shape)
        qobj = (H.col, H.row, np.where(H.row == H.col, H.data / 2.0, H.data))
    return CanonicalModel(
        var_names=dedupe_names(col_names),
        var_types=types,
        lb=np.array(lp.col_lower_),
        ub=np.array(lp.col_upper_),
        obj=np.array(lp.col_cost_),
        obj_constant=lp.offset_,
        sense="max" if lp.sense_ == highspy.ObjSense.kMaximize else "min",
        A=A,
        row_names=dedupe_names(row_names),
        row_lower=np.array(lp.row_lower_),
        row_upper=np.array(lp.row_upper_),
        qobj=qobj,
        name=lp.model_name_,
    )
