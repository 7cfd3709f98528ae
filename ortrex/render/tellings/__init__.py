"""Family tellings: how the client who has each family's problem describes it."""

from __future__ import annotations

from ortrex.render.telling import Telling
from ortrex.render.tellings import (
    allocation,
    covering,
    finance,
    flows,
    operations,
    packing,
    planning,
    routing,
    supply,
)

TELLINGS: dict[str, Telling] = {}
for _module in (allocation, covering, finance, flows, operations, packing, planning, routing,
                supply):
    TELLINGS.update(_module.TELLINGS)
