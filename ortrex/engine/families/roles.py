"""The role of every variable and constraint family each problem family builds (see
``ortrex.ir.roles``); the builder stamps them on the model, operators read them."""

from __future__ import annotations

# family -> {variable or constraint family name -> role}
ROLES: dict[str, dict[str, str]] = {
    "assignment": {"x": "assignment", "each_task": "assignment", "each_agent": "assignment"},
    "bin_packing": {"x": "assignment", "y": "selection", "packed": "assignment",
                    "capacity_limit": "linking", "in_order": "symmetry"},
    "blending": {"x": "quantity", "total_amount": "demand", "at_least": "ratio",
                 "at_most": "ratio"},
    "capital_budgeting": {"y": "selection", "budget_limit": "budget", "prerequisite": "logic"},
    "cutting_stock": {"x": "quantity", "orders": "demand"},
    "diet": {"x": "quantity", "requirement": "demand"},
    "facility_location": {"y": "selection", "x": "assignment", "served": "assignment",
                          "open_only": "linking"},
    "facility_location_cap": {"y": "selection", "x": "assignment", "served": "assignment",
                              "capacity_limit": "linking"},
    "knapsack_01": {"x": "selection", "capacity_limit": "capacity"},
    "knapsack_bounded": {"x": "quantity", "capacity_limit": "capacity"},
    "knapsack_multidim": {"x": "selection", "resource_limit": "capacity"},
    "lot_sizing": {"x": "quantity", "s": "inventory", "y": "indicator",
                   "capacity_limit": "capacity", "first_balance": "balance",
                   "balance": "balance", "setup_link": "linking"},
    "machine_scheduling": {"s": "timing", "y": "ordering", "i_before_j": "definition",
                           "j_before_i": "definition"},
    "max_flow": {"x": "quantity", "v": "quantity", "source": "balance",
                 "conservation": "balance"},
    "min_cost_flow": {"x": "quantity", "balance": "balance"},
    "multicommodity_flow": {"x": "quantity", "balance": "balance",
                            "shared_capacity": "capacity"},
    "portfolio": {"w": "quantity", "fully_invested": "balance", "return_target": "target"},
    "production_planning": {"x": "quantity", "s": "inventory", "capacity_limit": "capacity",
                            "first_balance": "balance", "balance": "balance"},
    "set_cover": {"y": "selection", "covered": "covering"},
    "set_packing": {"y": "selection", "conflict": "packing"},
    "shift_scheduling": {"x": "quantity", "coverage": "covering"},
    "shortest_path": {"x": "routing", "route": "balance"},
    "transportation": {"x": "quantity", "supply_limit": "capacity", "demand_met": "demand"},
    "tsp_mtz": {"x": "routing", "u": "position", "leave_once": "degree",
                "enter_once": "degree", "no_subtour": "subtour"},
    "unit_commitment": {"on": "indicator", "p": "quantity", "start": "indicator",
                        "meet_demand": "demand", "max_output": "linking",
                        "min_output": "linking", "first_start": "definition",
                        "start_up": "definition"},
}


def role_of(family: str, name: str) -> str:
    """The role ``family`` gives its variable or constraint family ``name``."""
    try:
        return ROLES[family][name]
    except KeyError:
        raise ValueError(f"family {family!r}: no role for {name!r} (ortrex/engine/families/"
                         "roles.py)") from None
