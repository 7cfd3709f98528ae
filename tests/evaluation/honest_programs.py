"""Honest answers to the first NL4OPT and OptiBench items, written from each statement alone
(these benchmarks ship no reference programs): what a modeller would hand in, gurobipy and
highspy. The scorer must pass them; a program that types the answer in must not pass."""

from __future__ import annotations

HONEST = {
    # Sled dogs (100 fish, $50 a trip) or trucks (300 fish, $100); budget $1000; fewer dog
    # trips than truck trips.
    "nl4opt_0": """import gurobipy as gp
from gurobipy import GRB

m = gp.Model("fishery")
m.Params.OutputFlag = 0
dogs = m.addVar(name="sled_dog_trips")
trucks = m.addVar(name="truck_trips")
m.addConstr(50 * dogs + 100 * trucks <= 1000, name="budget")
m.addConstr(dogs <= trucks, name="fewer_dog_trips")
m.setObjective(100 * dogs + 300 * trucks, GRB.MAXIMIZE)
m.optimize()
print("OPTIMAL_OBJECTIVE:", m.ObjVal)
""",
    # Colour printers (at most 20 a day, $200 profit), black and white (at most 30, $70); the
    # shared machine makes at most 35 a day.
    "nl4opt_1": """import gurobipy as gp
from gurobipy import GRB

model = gp.Model("printers")
model.Params.OutputFlag = 0
color = model.addVar(ub=20, name="color")
bw = model.addVar(ub=30, name="black_white")
model.addConstr(color + bw <= 35, name="paper_tray_machine")
model.setObjective(200 * color + 70 * bw, GRB.MAXIMIZE)
model.optimize()
print("OPTIMAL_OBJECTIVE:", model.ObjVal)
""",
    # Seniors $3000 a week, juniors $1000; at least 100 accountants, at least 5 seniors,
    # seniors at least a third of juniors, wage bill at most $150000: minimise the bill.
    "nl4opt_2": """import highspy

h = highspy.Highs()
h.setOptionValue("output_flag", False)
inf = highspy.kHighsInf
senior = h.addVariable(lb=5, name="senior")
junior = h.addVariable(lb=0, name="junior")
h.addConstr(senior + junior >= 100)
h.addConstr(3 * senior - junior >= 0)
h.addConstr(3000 * senior + 1000 * junior <= 150000)
h.minimize(3000 * senior + 1000 * junior)
print("OPTIMAL_OBJECTIVE:", h.getInfo().objective_function_value)
""",
    # 50 acres, at least 5 of apples and 10 of pears, $2 and $4 an acre, more pears than
    # apples but at most twice as many, whole acres.
    "nl4opt_3": """import gurobipy as gp
from gurobipy import GRB

m = gp.Model("orchard")
m.Params.OutputFlag = 0
apples = m.addVar(lb=5, vtype=GRB.INTEGER, name="apples")
pears = m.addVar(lb=10, vtype=GRB.INTEGER, name="pears")
m.addConstr(apples + pears <= 50, name="acres")
m.addConstr(pears >= apples, name="more_pears")
m.addConstr(pears <= 2 * apples, name="workforce")
m.setObjective(2 * apples + 4 * pears, GRB.MAXIMIZE)
m.optimize()
print("OPTIMAL_OBJECTIVE:", m.ObjVal)
""",
    # Process J: 5 metal, 8 water, 3 pollution; P: 9 metal, 6 water, 5 pollution; at most
    # 1500 water and 1350 pollution.
    "optibench_2": """import gurobipy as gp
from gurobipy import GRB

m = gp.Model("metal")
m.Params.OutputFlag = 0
j = m.addVar(name="process_J")
p = m.addVar(name="process_P")
m.addConstr(8 * j + 6 * p <= 1500, name="water")
m.addConstr(3 * j + 5 * p <= 1350, name="pollution")
m.setObjective(5 * j + 9 * p, GRB.MAXIMIZE)
m.optimize()
print("OPTIMAL_OBJECTIVE:", m.ObjVal)
""",
}
