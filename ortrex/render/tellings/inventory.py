"""Tellings of inventory and planning problems: backorders, workforce, a two-echelon supply
chain and a bill of materials."""

from __future__ import annotations

from ortrex.render.telling import Fact, Rule, Telling, divisible, whole

_BY_PERIOD = ("for {e}, {items}", "{e}: {items}", "{e} in {items}")

BACKORDERS = Telling(
    openings=(
        "Our {org} makes {n_P} {Ps}{names_P} on one {line}, and we plan {n_T} {Ts} ahead.",
        "We have to plan production of {n_P} {Ps} over the next {n_T} {Ts}{names_T}, and our "
        "{customers} accept late deliveries at a price.",
        "As the {org}, I need a production plan for {n_T} {Ts}; when the {line} cannot keep "
        "up, orders can wait, but every {T} of waiting costs us.",
        "Orders from our {customers} for {n_P} {Ps}{names_P} rise and fall over the next "
        "{n_T} {Ts}, and the {line} has limited hours.",
    ),
    context=("Building ahead ties up stock; falling behind costs us penalties with our "
             "{customers}.",
             "Last year we ran late in the peak and paid for it.",
             "Every {P} needs its own set-up of the {line}."),
    facts={
        "demand": Fact(("Orders due ({unit_demand}): {items}.",
                        "Our {customers} expect these deliveries ({unit_demand}): {items}."),
                       ("{e} {v}",), _BY_PERIOD, label="orders due"),
        "hours": Fact(("Time on the {line} per unit made: {items}.",
                       "{time} per unit: {items}."),
                      ("{e} {V}",), label="{time} per unit"),
        "capacity": Fact(("{time} available: {items}.",
                          "The {line} is free for this many hours: {items}."),
                         ("{e} {V}", "in {e} {V}"), label="{time} available"),
        "initial": Fact(("Stock on hand today: {items}.", "Starting stock: {items}."),
                        ("{e} {V}",), label="starting stock"),
        "make_cost": Fact(("Making one unit costs ({unit_make_cost}): {items}.",
                           "Unit production costs ({unit_make_cost}): {items}."),
                          ("{e} {v}",), ("for {e}, {items}", "{e}: {items}"),
                          label="unit production cost"),
        "hold_cost": Fact(("Storage cost for each unit in stock at the end of a {T}: {items}.",
                           "What it costs to keep one unit in stock for a {T}: {items}."),
                          ("{e} {V}",), label="holding cost per {T}"),
        "backorder_cost": Fact((
            "Penalty for each unit still owed to our {customers} at the end of a {T}: {items}.",
            "Late-delivery penalty per unit and {T} of delay: {items}."),
            ("{e} {V}",), label="late penalty per {T}"),
        "setup_cost": Fact(("Set-up costs, paid in every {T} the {line} is set up for a {P}: "
                            "{items}.", "Set-up cost per {T} of production: {items}."),
                           ("{e} {V}",), label="set-up cost"),
    },
    rules=(
        Rule(("capacity_limit",), ("In each {T}, production must fit the {line}'s hours.",
                                   "We cannot use more {time} than are available in a {T}."),
             ("Production in a {T} fits its {time}.",)),
        Rule(("first_balance", "balance"), (
            "Nothing is overdue today. Orders due in a {T}, and any still owed from before, "
            "are served from stock or from that {T}'s output; what is left over stays in "
            "stock for the next {T}, and whatever falls short is owed and delivered later.",
            "No orders are overdue today. Each {T}, stock carried over plus what we make "
            "serves the orders due and any backlog; leftovers are stored, and a shortfall is "
            "carried forward as a backlog to be delivered later.",
            "We start with no backlog. Whatever a {T}'s output and stock leave undelivered is "
            "owed to our {customers} and delivered in a later {T}; whatever is not needed "
            "stays in stock."),
             ("In the first {T}, start stock plus output serves the orders due; the rest is "
              "stocked or owed.",
              "Stock carried in, less orders still owed, plus output serves the orders due; "
              "the rest is stocked or owed.")),
        Rule(("backlog_cleared",), (
            "Everything must be delivered by the end of {last_T}: no order may still be open "
            "then.",
            "All late orders have to be cleared by the end of {last_T}."),
             ("Nothing is still owed at the end of the last {T}.",)),
        Rule(("setup_link",), ("We can only make a {P} in a {T} if the {line} is set up for "
                               "it in that {T}.",
                               "No production without a set-up in the same {T}."),
             ("A {P} is made in a {T} only after a setup.",)),
        Rule((), ("A set-up either happens in a {T} or not.",
                  "The {line} is either set up for a {P} in a {T} or it is not.")),
        divisible(("x", "s", "u"), "Quantities made, stored and owed need not be whole {qty}.",
                  "Output, stock and backlog can be fractional; whole {qty} are not required.",
                  "We may make, keep and owe fractions of {qty}, not only whole ones."),
    ),
    goals=("We want the lowest total of production, storage, late-delivery and set-up costs.",
           "Please minimise production, holding, backorder and set-up costs together."),
    objective="production, holding, backorder and setup cost in {money}",
    asks=("In which {Ts} should we set up for each {P}, how much should we make, how much "
          "will be late, and what does it cost?",),
    report={"x": "{v} {qty} of {p} in {t}", "u": "{v} {qty} of {p} owed after {t}",
            "y": "set up for {p} in {t}"},
    settled=("y",),
)

WORKFORCE = Telling(
    openings=(
        "Our {org} has {n_K} {Ks}{names_K}, and I have to plan their {staff} for the next "
        "{n_T} {Ts}.",
        "We need a staffing plan for {n_T} {Ts}{names_T}: how many {staff} to hire or let go "
        "in each {K}, and how much overtime to ask for.",
        "As the {org}, I plan the {staff} of {n_K} {Ks} over {n_T} {Ts}; the {work} in each "
        "{K} rises and falls.",
    ),
    context=("Hiring takes effort and letting people go is expensive, so we try not to swing "
             "the headcount too much.",
             "Overtime is paid at a premium.",
             "The busy season is coming, and last year we were caught short."),
    facts={
        "demand": Fact(("Hours of {work} needed: {items}.",
                        "Work to cover ({unit_demand}): {items}."),
                       ("{e} {v}",), _BY_PERIOD, label="hours of {work} needed"),
        "initial": Fact(("{staff} on the payroll today: {items}.", "Current headcount: {items}."),
                        ("{e} {V}",), label="{staff} today"),
        "regular": Fact(("Each {person} works {items} in a {T} at the regular rate.",
                         "Regular time is {items} per {person} in each {T}."),
                        label="regular hours per {person}"),
        "ot_max": Fact(("A {person} can work at most {items} of overtime in a {T}.",
                        "Overtime is capped at {items} per {person} and {T}."),
                       label="overtime cap per {person}"),
        "wage": Fact(("Wages per {person} and {T}: {items}.",
                      "What one {person} costs us in a {T}: {items}."),
                     ("{e} {V}",), label="wage per {T}"),
        "ot_cost": Fact(("Overtime cost per hour: {items}.",
                         "What each overtime hour costs us: {items}."),
                        ("{e} {V}",), label="overtime cost per hour"),
        "hire_cost": Fact(("Cost of hiring one {person}, recruiting and training included: "
                           "{items}.", "Hiring cost per {person}: {items}."),
                          ("{e} {V}",), label="hiring cost"),
        "fire_cost": Fact(("Cost of letting one {person} go, severance included: {items}.",
                           "Severance per {person}: {items}."),
                          ("{e} {V}",), label="cost of letting go"),
        "hire_limit": Fact(("Recruiting can bring in at most this many new {staff} in a {T}, "
                            "all {Ks} together: {items}.",
                            "Most new {staff} we can take on in a {T}, across all {Ks}: "
                            "{items}."),
                           ("{e} {V}", "in {e} {V}"), label="most new {staff}"),
    },
    rules=(
        Rule(("first_balance", "balance"), (
            "A {K}'s headcount changes only by hiring and letting people go, both at the start "
            "of a {T}; {staff} never move between {Ks}.",
            "Each {K} keeps its {staff} from one {T} to the next, plus the new hires, minus "
            "those let go at the start of the {T}; nobody transfers between {Ks}."),
             ("In the first {T}, the {staff} of a {K} are those at the start, plus hires, "
              "less those let go.",
              "The {staff} of a {K} are last {T}'s, plus hires, less those let go.")),
        Rule(("cover",), (
            "In every {T}, each {K} must get all its hours of {work} done, in regular time or "
            "overtime.",
            "The {work} of a {K} in a {T} has to be covered by its {staff}' regular hours plus "
            "overtime."),
             ("Regular and overtime hours cover the work of each {K} in each {T}.",)),
        Rule(("overtime_cap",), (
            "No {person} may go over the overtime cap, so a {K}'s overtime in a {T} is at most "
            "the cap times its headcount.",
            "Overtime in a {K} is limited by its headcount: at most the cap for each {person} "
            "it employs that {T}."),
             ("Overtime in a {K} stays within the cap per {person}.",)),
        Rule(("hiring_cap",), (
            "We cannot hire more new {staff} in a {T} than recruiting can handle.",
            "Hires in a {T}, over all {Ks}, stay within our recruiting capacity."),
             ("Hires in a {T} stay within the recruiting capacity.",)),
        whole(("w", "h", "f"), "We employ, hire and let go whole {staff} only.",
              "Headcounts, hires and departures are whole numbers of {staff}."),
        divisible("o", "Overtime can be any number of hours, fractions included.",
                  "Overtime hours need not be whole hours."),
    ),
    goals=("We want the lowest total staff cost: wages, overtime, hiring and severance.",
           "Please keep the cost of wages, overtime, hiring and letting people go as low as "
           "possible."),
    objective="staff cost in {money}",
    asks=("How many {staff} should each {K} hire or let go in each {T}, how much overtime "
          "should it use, and what does the plan cost?",),
    report={"w": "{v} {staff} in {k} in {t}", "h": "hire {v} into {k} in {t}",
            "f": "let {v} go from {k} in {t}", "o": "{v} overtime hours in {k} in {t}"},
    settled=("w", "h", "f"),
)

ECHELONS = Telling(
    openings=(
        "Our {plant} supplies {n_W} {Ws}{names_W}, and they in turn serve {n_R} "
        "{Rs}{names_R}.",
        "We plan the flow of {goods} from our {plant} through {n_W} {Ws} to {n_R} {Rs} over "
        "the next {n_T} {Ts}.",
        "As the {org}, I need a distribution plan for {n_T} {Ts}: the {plant} ships to our "
        "{n_W} {Ws}, and the {Ws} deliver to {n_R} {Rs}.",
    ),
    context=("The {plant} cannot always keep up with the peak, so stock is built up at the "
             "{Ws} beforehand.",
             "Any {W} can deliver to any {R}.",
             "Space at the {Ws} is limited, and so is what they can send out."),
    facts={
        "demand": Fact(("What the {Rs} need ({unit_demand}): {items}.",
                        "Deliveries each {R} needs ({unit_demand}): {items}."),
                       ("{e} {v}",), _BY_PERIOD, label="requirement"),
        "plant_cap": Fact(("The {plant}'s shipping capacity per {T}: {items}.",
                           "Output of the {plant} available for shipping: {items}."),
                          ("{e} {V}", "in {e} {V}"), label="{plant} output"),
        "initial": Fact(("Stock at the {Ws} today: {items}.", "The {Ws} start with: {items}."),
                        ("{e} {V}",), label="starting stock"),
        "storage": Fact(("Most stock each {W} can hold at the end of a {T}: {items}.",
                         "Storage space at the {Ws}: {items}."),
                        ("{e} {V}",), label="storage space"),
        "dispatch": Fact(("Each {W} can send out at most this much in a {T}: {items}.",
                          "Dispatch capacity per {T}: {items}."),
                         ("{e} {V}",), label="dispatch capacity"),
        "ship_in": Fact(("Freight from the {plant} to the {Ws}, per unit: {items}.",
                         "Cost of shipping one unit from the {plant}: {items}."),
                        ("{e} {V}", "to {e} {V}"), label="freight from the {plant}"),
        "ship_out": Fact(("Delivery costs from the {Ws} to the {Rs} ({unit_ship_out}): "
                          "{items}.",
                          "What one unit costs to ship from each {W} to each {R} "
                          "({unit_ship_out}): {items}."),
                         ("{e} {v}", "to {e} {v}"),
                         ("from {e}, {items}", "out of {e}: {items}"),
                         label="delivery cost"),
        "hold_cost": Fact(("Holding cost per unit and {T} at each {W}: {items}.",
                           "Cost of keeping one unit in stock at a {W} for a {T}: {items}."),
                          ("{e} {V}",), label="holding cost per {T}"),
    },
    rules=(
        Rule(("plant_limit",), (
            "In each {T}, the {plant} cannot ship more than its output allows.",
            "The {plant}'s shipments in a {T} stay within what it can ship."),
             ("The {plant} ships no more than it can in a {T}.",)),
        Rule(("first_balance", "balance"), (
            "What a {W} holds at the end of a {T} is what it had before, plus what arrived "
            "from the {plant}, minus what it sent to the {Rs}; shipments arrive in the {T} "
            "they leave, and everything reaches the {Rs} through a {W}.",
            "Stock at a {W} carries over from {T} to {T}: the stock before, plus arrivals from "
            "the {plant}, minus deliveries to the {Rs}. The {plant} never delivers to the {Rs} "
            "directly, and the {Ws} do not ship to each other."),
             ("In the first {T}, a {W}'s start stock plus arrivals, less what it sends out, is "
              "its stock.",
              "A {W}'s stock carried in plus arrivals, less what it sends out, is its stock.")),
        Rule(("storage_limit",), (
            "A {W} cannot hold more stock at the end of a {T} than its storage space.",
            "No {W} may end a {T} with more stock than it has room for."),
             ("A {W} holds no more than its storage space.",)),
        Rule(("dispatch_limit",), (
            "No {W} can send out more in a {T} than its dispatch capacity.",
            "What a {W} sends to the {Rs} in a {T} is limited by its dispatch capacity."),
             ("A {W} sends out no more than it can handle in a {T}.",)),
        Rule(("demand_met",), (
            "Each {R} must receive what it needs in every {T}, in that {T}: the {Rs} keep no "
            "stock and nothing may arrive late.",
            "Every {R}'s requirement in a {T} has to be delivered in full in that {T}."),
             ("Each {R} receives what it needs in each {T}.",)),
        divisible(("x", "y", "s"), "Planned quantities do not have to be whole numbers.",
                  "Shipments and stock may be planned in fractions of {qty}."),
    ),
    goals=("We want the lowest total cost of shipping and holding stock.",
           "Please minimise freight plus storage costs."),
    objective="shipping and holding cost in {money}",
    asks=("How much should the {plant} send to each {W}, how much should each {W} deliver to "
          "each {R} in each {T}, and what will it cost?",),
    report={"x": "{v} {qty} to {w} in {t}", "y": "{v} {qty} from {w} to {r} in {t}",
            "s": "{v} {qty} held at {w} after {t}"},
)

BOM = Telling(
    openings=(
        "Our {org} makes {n_E} {Es}{names_E} from {n_S} {Ss}{names_S}, and we plan {n_T} "
        "{Ts} ahead.",
        "We have to plan production of {n_E} {Es} over the next {n_T} {Ts}; each {E} is made "
        "from {Ss}, which we either make ourselves from {Cs} or buy ready-made.",
        "As the {org}, I need a production and purchasing plan for {n_T} {Ts}{names_T}.",
    ),
    context=("Making {Ss} in our {shop} is cheaper than buying them, but the {shop} has only "
             "so many hours.",
             "We cannot always sell everything the market wants; the {assembly} is the "
             "bottleneck."),
    facts={
        "demand": Fact(("The most {buyers} will take ({unit_demand}): {items}.",
                        "The most we could sell in each {T} ({unit_demand}): {items}."),
                       ("{e} {v}",), _BY_PERIOD, label="most we can sell"),
        "price": Fact(("Selling prices: {items}.", "We sell at: {items}."),
                      ("{e} {V}",), label="selling price"),
        "hold_cost": Fact(("Holding cost per unit of stock and {T}: {items}.",
                           "Cost of keeping a unit in stock for a {T}: {items}."),
                          ("{e} {V}",), label="holding cost per {T}"),
        "initial": Fact(("Stock of {Es} today: {items}.", "Starting stock: {items}."),
                        ("{e} {V}",), label="starting stock"),
        "ahours": Fact(("Time on the {assembly} per unit made: {items}.",
                        "{assembly} hours per unit: {items}."),
                       ("{e} {V}",), label="{assembly} hours per unit"),
        "acap": Fact(("Hours available on the {assembly}: {items}.",
                      "The {assembly} is available for: {items}."),
                     ("{e} {V}", "in {e} {V}"), label="{assembly} hours available"),
        "sub_use": Fact(("What goes into one unit of each {E} ({unit_sub_use}): {items}.",
                         "Our recipes ({unit_sub_use}): {items}."),
                        ("{e} {v}",), ("for {e}, {items}", "{e} takes {items}"),
                        label="{S} per unit of {E}"),
        "mhours": Fact(("{shop} hours per unit of {S} made in-house: {items}.",
                        "Time in the {shop} per unit made: {items}."),
                       ("{e} {V}",), label="{shop} hours per unit"),
        "mcap": Fact(("Hours available in the {shop}: {items}.",
                      "Working hours of the {shop}: {items}."),
                     ("{e} {V}", "in {e} {V}"), label="{shop} hours available"),
        "buy_price": Fact(("Buying {Ss} ready-made from {supplier} costs: {items}.",
                           "Prices of ready-made {Ss}: {items}."),
                          ("{e} {V}",), label="price ready-made"),
        "part_use": Fact(("What one unit of each {S} made in-house takes ({unit_part_use}): "
                          "{items}.", "{Cs} per unit of {S} we make ({unit_part_use}): "
                          "{items}."),
                         ("{e} {v}",), ("for {e}, {items}", "{e} takes {items}"),
                         label="{C} per unit of {S}"),
        "part_price": Fact(("Prices of {Cs}: {items}.", "We pay for {Cs}: {items}."),
                           ("{e} {V}",), label="price of {C}"),
        "part_limit": Fact(("Our suppliers can deliver at most this much of each {C} in a "
                            "{T}: {items}.", "{C} allotment per {T}: {items}."),
                           ("{e} {V}",), label="allotment per {T}"),
    },
    rules=(
        Rule(("first_stock", "stock"), (
            "Finished {Es} can be kept in stock from one {T} to the next: what we hold at the "
            "end of a {T} is what we had, plus what we made, minus what we sold.",
            "Stock of each {E} carries over: the stock before, plus output, minus sales."),
             ("In the first {T}, start stock plus output, less sales, is the stock of a {E}.",
              "Stock carried in plus output, less sales, is the stock of a {E}.")),
        Rule(("sales_limit",), (
            "We cannot sell more of a {E} in a {T} than {buyers} will take; sales we miss "
            "are lost, not made up later.",
            "Sales in each {T} are capped by what the market takes; unmet demand is simply "
            "lost."),
             ("Sales of a {E} stay within what {buyers} will take.",)),
        Rule(("sub_balance",), (
            "Every unit of {S} that goes into our {Es} in a {T} is either made in our {shop} "
            "or bought ready-made in that same {T}; we keep no stock of {Ss}.",
            "The {Ss} a {T}'s output needs are made in-house or bought in that {T}, in any "
            "mix; none are stored."),
             ("The {S} used in a {T} is made in-house or bought in that {T}.",)),
        Rule(("part_balance",), (
            "{Cs} are bought as the {shop} needs them: what goes into the {Ss} we make in a "
            "{T} is bought in that {T}, and ready-made {Ss} need none from us.",
            "We keep no stock of {Cs}; each {T} we buy exactly what our own {Ss} take."),
             ("The {C} bought in a {T} is what the {shop} uses then.",)),
        Rule(("part_supply",), (
            "We cannot buy more of a {C} in a {T} than our suppliers deliver.",
            "Purchases of each {C} in a {T} stay within its allotment."),
             ("Purchases of a {C} stay within its allotment.",)),
        Rule(("shop_hours",), (
            "Making {Ss} in-house cannot take more {shop} hours than are available in a {T}.",
            "The {shop} has only its available hours in each {T}."),
             ("Work in the {shop} fits its hours in a {T}.",)),
        Rule(("assembly_hours",), (
            "Making {Es} cannot take more {assembly} hours than are available in a {T}.",
            "Output in each {T} must fit the hours of the {assembly}."),
             ("Output fits the {assembly} hours in a {T}.",)),
        divisible(("a", "q", "s", "m", "b", "z"),
                  "All amounts are in {qty} and can be fractional.",
                  "Quantities need not be whole {qty}."),
    ),
    goals=("We want the highest profit: sales revenue minus what we pay for {Cs}, ready-made "
           "{Ss} and storage.",
           "Please maximise profit after materials, purchases and holding costs."),
    objective="profit in {money}",
    asks=("How much of each {E} should we make and sell in each {T}, which {Ss} should we "
          "make or buy, and what profit does that give?",),
    report={"a": "make {v} {qty} of {e} in {t}", "q": "sell {v} {qty} of {e} in {t}",
            "m": "make {v} {qty} of {j} in {t}", "b": "buy {v} {qty} of {j} in {t}",
            "z": "buy {v} {qty} of {c} in {t}"},
)

TELLINGS = {"backorder_planning": BACKORDERS, "workforce_planning": WORKFORCE,
            "multi_echelon": ECHELONS, "bom_production": BOM}
