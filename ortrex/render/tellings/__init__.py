"""Family tellings: how the client who has each family's problem describes it.

Every family has one (``tests/engine/test_family_completeness.py`` checks each of its
domains): a statement of a family without one is an error (:class:`MissingTelling`), never a
recital of the family's meanings. A plugin's family registers its telling with
:func:`register_telling`; every read of ``TELLINGS`` loads the plugins first.
"""

from __future__ import annotations

from ortrex.plugins import Registry
from ortrex.render.telling import Telling
from ortrex.render.tellings import (
    allocation,
    covering,
    finance,
    flows,
    hubs,
    inventory,
    nonlinear,
    operations,
    packing,
    pairing,
    planning,
    rostering,
    routing,
    shops,
    siting,
    supply,
    uncertain,
    vehicles,
    word_problems,
)

TELLINGS: Registry[Telling] = Registry()
for _module in (allocation, covering, finance, flows, hubs, inventory, nonlinear, operations,
                packing, pairing, planning, rostering, routing, shops, siting, supply,
                uncertain, vehicles, word_problems):
    for _family, _telling in _module.TELLINGS.items():
        TELLINGS.add(_family, _telling, "telling")


class MissingTelling(LookupError):
    """A family has no statement telling (one line: which family, and where one goes)."""


def register_telling(family: str, telling: Telling) -> None:
    """Make ``telling`` the statement telling of ``family`` (once)."""
    TELLINGS.add(family, telling, "telling")


def telling_of(family: str) -> Telling:
    """The statement telling of ``family``; :class:`MissingTelling` when it has none."""
    telling = TELLINGS.get(family)
    if telling is None:
        raise MissingTelling(
            f"family {family!r} has no statement telling: add a Telling to a module of "
            f"ortrex/render/tellings/ (a plugin: register_telling({family!r}, Telling(...)))")
    return telling
