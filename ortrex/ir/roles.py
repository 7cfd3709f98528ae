"""Roles of variable and constraint families: what each part of a model means to a modeller,
set by the family that builds it and read by the operators that may change it."""

from __future__ import annotations

# What a variable family decides.
VARIABLE_ROLES = {
    "quantity": "an amount decided (shipped, made, bought, invested, flowing)",
    "inventory": "stock carried from one period to the next (held, never sold as such)",
    "selection": "a yes/no choice of an item, project, site or set",
    "assignment": "which agent, bin or server takes which task or item",
    "routing": "whether an arc is on a route or tour",
    "indicator": "an on/off, setup or start-up state that switches a quantity",
    "position": "a modeller's ordering position (tour position, MTZ)",
    "ordering": "a modeller's precedence choice between two jobs",
    "timing": "a start time",
    "auxiliary": "a modeller's device: a worst-case bound, a slack",
}

# What a constraint family says.
CONSTRAINT_ROLES = {
    "assignment": "every task, item or customer goes to exactly one (or at most one) taker",
    "degree": "a route leaves and enters every node once",
    "balance": "conservation: inflow, stock and outflow agree; shares add up",
    "subtour": "a tour has no sub-tours",
    "linking": "a quantity is possible only where its indicator or site is on",
    "definition": "defines a modeller's device (start-ups, worst case, disjunctions)",
    "capacity": "a resource caps what is used",
    "demand": "a requirement is met",
    "budget": "spending stays within a budget",
    "covering": "every element is covered",
    "packing": "conflicting choices exclude each other",
    "ratio": "a share, blend or average stays within limits",
    "logic": "an either-or or precedence rule between choices",
    "symmetry": "identical resources are used in order",
    "target": "an expected return or service level reaches a target",
}

# Rows that make a model what it is: never removed, never softened by a penalty.
PROTECTED = frozenset({"assignment", "degree", "balance", "subtour", "linking", "definition"})
# Variables revenue may be earned on, and quantities min-max and ratios may compare.
PRICEABLE = frozenset({"quantity", "selection"})
# Yes/no decisions: relaxed to continuous they are fractions of a choice, not quantities.
INDICATORS = frozenset({"selection", "assignment", "routing", "indicator"})
# Variables a client never hears of (a modeller's devices).
MODELLERS = frozenset({"position", "ordering", "auxiliary"})


def check_role(role: str, kind: str, owner: str) -> None:
    """Raise ``ValueError`` naming ``owner`` if ``role`` is not a known role of ``kind``."""
    known = VARIABLE_ROLES if kind == "variable" else CONSTRAINT_ROLES
    if role and role not in known:
        raise ValueError(f"{kind} {owner!r}: unknown role {role!r}; known: {', '.join(known)}")
