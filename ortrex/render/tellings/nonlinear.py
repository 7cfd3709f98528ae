"""Tellings of nonlinear problems: a portfolio under a variance limit, pooling with quality
balances, lot sizes under a shared space limit and the quadratic assignment of a layout."""

from __future__ import annotations

from ortrex.render.telling import Fact, Rule, Telling, divisible

RISK_LIMITED = Telling(
    openings=(
        "Our {org} has to split its {budget} over {n_A} {As}{names_A}.",
        "We are deciding how much of our {budget} goes into each of {n_A} {As}, grouped "
        "into {n_S} {Ss}{names_S}.",
        "As the {org}, I need to spread the {budget} across {n_A} {As}{names_A} without "
        "taking on more risk than we allow.",
        "The {budget} of our {org} is to be shared among {n_A} {As}, each belonging to one "
        "of {n_S} {Ss}.",
    ),
    context=(
        "The {As} that promise the most are also the ones whose results swing the most, "
        "and they tend to move together.",
        "We measure risk by the variance of the return, worked out from the covariances "
        "below.",
        "Last time we simply chased the best returns, and the {risk} went far beyond what "
        "we can accept.",
    ),
    facts={
        "mean": Fact(("Expected returns ({unit_mean}): {items}.",
                      "What each {A} is expected to return: {items}.",
                      "Our forecast of the return of each {A}: {items}."),
                     ("{e} {V}",), label="expected return"),
        "cov": Fact(("Covariances of the returns ({unit_cov}): {items}.",
                     "How the returns move together, as covariances ({unit_cov}): {items}.",
                     "The covariance matrix of the returns ({unit_cov}): {items}."),
                    ("{e} {v}",), ("{e} with {items}", "for {e}: {items}"),
                    label="covariance"),
        "member": Fact(("Which {As} make up each {S}: {items}.",
                        "The {Ss} and their {As}: {items}.",
                        "Every {A} belongs to one {S}: {items}."),
                       group=("{e} has {items}", "{e}: {items}", "{e} holds {items}"),
                       label="{As} in the {S}", members=0),
        "limit": Fact(("The largest share of the {budget} each {A} may take: {items}.",
                       "Each {A} has its own ceiling, as a share of the {budget}: {items}.",
                       "No {A} may go above its ceiling (a share of the {budget}): "
                       "{items}."),
                      ("{e} {v}", "{e} at most {v}"), label="largest share"),
        "sector_cap": Fact(("No {S} may take a share of the {budget} above {v}.",
                            "At most a share of {v} of the {budget} may sit in any one {S}.",
                            "The {As} of one {S} may take no more than {v} of the {budget} "
                            "together."),
                           label="largest share of any one {S}"),
        "risk_cap": Fact(("The {risk} must not exceed {V}.",
                          "We cap the {risk} at {V}.",
                          "Our limit on the {risk} is {V}."),
                         label="variance limit"),
    },
    rules=(
        Rule(("fully_invested",), ("All of the {budget} must be used: the shares add up to "
                                   "one.",
                                   "Every part of the {budget} goes into some {A}; nothing "
                                   "is held back.",
                                   "The shares of the {budget} must add up to exactly one."),
             ("The shares add up to the whole {budget}.",)),
        Rule(("sector_limit",), ("The {As} of one {S} together stay within the ceiling for "
                                 "{a_S}.",
                                 "No {S} may take more of the {budget} than its ceiling.",
                                 "Whatever goes into the {As} of one {S} must stay within "
                                 "the ceiling per {S}."),
             ("No {S} takes more than its largest share.",)),
        Rule(("risk_limit",), ("The {risk}, worked out from the shares and the covariances "
                               "of every pair of {As}, must stay within the limit.",
                               "The variance of the return (the covariance of each pair of "
                               "{As} times both their shares, summed over all pairs) may not "
                               "exceed the limit.",
                               "We cannot accept a {risk} above the limit; it is computed "
                               "from the shares and the covariances."),
             ("The variance of the return stays within the limit.",)),
        Rule((), ("No share can be negative, and no {A} may go above its own ceiling.",
                  "Nothing is sold short, and each {A} stays within its ceiling.")),
        divisible("w", "The {budget} can be split in any proportions.",
                  "Any fraction of the {budget} can go to {a_A}."),
    ),
    goals=("We want the highest expected return the limits allow.",
           "The aim is to maximise the expected return.",
           "Please get us as much expected return as the limits permit."),
    objective="expected return in {ret}",
    asks=("How should we split the {budget} across the {As}, and what expected return does "
          "that give?",
          "What share of the {budget} should each {A} get, and what is the expected return?"),
    report={"w": "{v} of the {budget} to {a}"},
)

POOLING = Telling(
    openings=(
        "At our {org} we {blend} {n_I} {Is}{names_I} in {n_L} {Ls}{names_L} to make {n_J} "
        "{Js}{names_J}.",
        "We make {n_J} {Js}{names_J} from {n_I} {Is}, which pass through our {n_L} {Ls}, "
        "and from {n_K} {Ks}{names_K} that we add to the {Js} directly.",
        "As the {org}, I plan every {period} how much of each {I} goes into which {L}, and "
        "where the output of the {Ls} and our {Ks} should go.",
        "Our {n_I} {Is} are mixed in {n_L} {Ls} before they become {Js}; {n_K} {Ks} are "
        "kept apart and go straight into the {Js}.",
    ),
    context=(
        "The cheap {Is} carry the most {prop}, so the clean ones are what keeps the {Js} "
        "within their limits.",
        "Mixing everything in the {Ls} saves tanks and handling, but it also means the "
        "{prop} of a {L} is shared by every {J} it feeds.",
        "Prices for the {Js} are good this season, but only up to what the market takes.",
    ),
    facts={
        "quality": Fact(("The {prop} content of each {I} ({unit_quality}): {items}.",
                         "Each {I} carries this much {prop}: {items}.",
                         "How much {prop} the {Is} carry: {items}."),
                        ("{e} {V}", "{e} at {V}"), label="{I} {prop} content"),
        "quality_k": Fact(("The {prop} content of each {K} ({unit_quality_k}): {items}.",
                           "Each {K} carries this much {prop}: {items}.",
                           "How much {prop} the {Ks} carry: {items}."),
                          ("{e} {V}", "{e} at {V}"), label="{K} {prop} content"),
        "limit": Fact(("The {prop} limits of the {Js}: {items}.",
                       "No {J} may carry more {prop} than this: {items}.",
                       "Each {J} has a ceiling on its {prop}: {items}."),
                      ("{e} {V}", "{e} at most {V}"), label="{prop} limit"),
        "cost": Fact(("What each {I} costs us ({unit_cost}): {items}.",
                      "Prices we pay for the {Is}: {items}.",
                      "The {Is} cost us as follows: {items}."),
                     ("{e} {V}", "{e} at {V}"), label="{I} cost"),
        "cost_k": Fact(("What each {K} costs us ({unit_cost_k}): {items}.",
                        "Prices we pay for the {Ks}: {items}.",
                        "The {Ks} cost us as follows: {items}."),
                       ("{e} {V}", "{e} at {V}"), label="{K} cost"),
        "price": Fact(("What we get for each {J} ({unit_price}): {items}.",
                       "Selling prices of the {Js}: {items}.",
                       "What the {Js} sell for: {items}."),
                      ("{e} {V}", "{e} at {V}"), label="selling price"),
        "demand": Fact(("The most we can sell of each {J}: {items}.",
                        "What the market takes at most: {items}.",
                        "Sales limits per {J}: {items}."),
                       ("{e} {V}", "{e} up to {V}"), label="sales limit"),
        "supply_k": Fact(("How much of each {K} we can get: {items}.",
                          "The supply of the {Ks} is limited: {items}.",
                          "Available of the {Ks}: {items}."),
                         ("{e} {V}", "{e} up to {V}"), label="supply"),
        "pool_cap": Fact(("The most each {L} can pass on: {items}.",
                          "The throughput of the {Ls}: {items}.",
                          "How much each {L} can handle: {items}."),
                         ("{e} {V}", "{e} up to {V}"), label="throughput"),
        "pipe": Fact(("Which {Is} have a {line} into each {L}: {items}.",
                      "The {line}s run as follows: {items}.",
                      "Not every {I} can reach every {L}: {items}."),
                     group=("{e} is fed by {items}", "{e} takes {items}",
                            "{e} has a {line} from {items}"),
                     label="{Is} with a {line} into the {L}", members=0),
    },
    rules=(
        Rule(("piped",), ("{a_I} can only go into {a_L} it has a {line} to.",
                          "Nothing reaches {a_L} except through its own {line}s.",
                          "Each {L} receives only the {Is} that have a {line} into it."),
             ("A {I} goes only into a {L} it has a {line} to, and never beyond what the {L} "
              "can pass on.",)),
        Rule(("pool_balance",), ("Whatever goes into {a_L} comes out of it; nothing is "
                                 "stored from one {period} to the next.",
                                 "Every {L} passes on exactly what it receives.",
                                 "{a_L} holds nothing back: what flows in flows out."),
             ("What flows into a {L} flows out of it.",)),
        Rule(("pool_capacity",), ("No {L} can pass on more than its throughput.",
                                  "What leaves {a_L} must stay within what that {L} can "
                                  "handle.",
                                  "The output of each {L} is limited by its throughput."),
             ("No {L} passes on more than it can.",)),
        Rule(("pool_quality",), ("The {prop} of what leaves {a_L} is the average of the {Is} "
                                 "poured into it, weighted by how much of each goes in.",
                                 "Inside {a_L} the {Is} mix completely, so everything that "
                                 "comes out carries their flow-weighted average {prop}.",
                                 "{a_L} cannot separate anything: all its output has the "
                                 "same {prop}, the weighted average of what went in."),
             ("A {L}'s {prop} is the average of the {I}s poured into it.",)),
        Rule(("quality_limit",), ("Every {J} must stay within its {prop} limit, counting "
                                  "what comes from the {Ls} and from the {Ks}.",
                                  "The {prop} of each {J}, averaged over everything blended "
                                  "into it, may not exceed its limit.",
                                  "No {J} may go over its {prop} limit once the flows from "
                                  "the {Ls} and the {Ks} are mixed."),
             ("Every {J} stays within its {prop} limit.",)),
        Rule(("demand_limit",), ("We cannot sell more of a {J} than the market takes.",
                                 "Each {J} stays within its sales limit.",
                                 "Making more of a {J} than can be sold is pointless; "
                                 "nothing beyond the sales limit."),
             ("No more of a {J} is made than can be sold.",)),
        Rule(("supply_k_limit",), ("We cannot use more of a {K} than is available.",
                                   "Each {K} is limited to its supply.",
                                   "No {K} can be used beyond what we can get."),
             ("No {K} is used beyond what is available.",)),
        Rule((), ("The {Is} reach the {Js} only through the {Ls}, and the {Ks} go straight "
                  "into the {Js}, never into a {L}.",
                  "{a_I} always passes through {a_L} first; the {Ks} never enter a {L} and "
                  "are added to the {Js} directly.")),
        divisible(("x", "y", "z"), "Any amount can be sent along any route, fractions "
                  "included.", "Flows do not have to be whole numbers."),
    ),
    goals=("We want the highest profit per {period}: what the {Js} sell for, minus what the "
           "{Is} and {Ks} cost.",
           "The aim is the largest profit per {period}, sales less the cost of everything "
           "bought.",
           "Please make us as much profit per {period} as possible."),
    objective="profit in {cash} per {period}",
    asks=("How much of each {I} should go into which {L}, where should the {Ls} and the "
          "{Ks} send their output, and what profit does that make?",
          "What flows do you recommend, and what profit per {period} do they give?"),
    report={"x": "{v} {qty} of {i} into {l}", "y": "{v} {qty} from {l} into {j}",
            "z": "{v} {qty} of {k} straight into {j}"},
    auxiliaries=("p",),
)

LOT_SIZE_SPACE = Telling(
    openings=(
        "Our {org} orders {n_I} {Is}{names_I} in lots, and every lot has to fit in our "
        "{space}.",
        "We stock {n_I} {Is}; each is ordered in lots that sit in one shared {space}.",
        "As the {org}, I need to set the order size of each of our {n_I} {Is}{names_I}.",
        "Each of our {n_I} {Is} is reordered in lots of a fixed size, and the {space} they "
        "share is tight.",
    ),
    context=(
        "Demand is steady through the year, and a new lot arrives just as the last one "
        "runs out.",
        "Bigger lots mean fewer orders but more stock to pay for and to find room for.",
        "An order costs the same whatever its size.",
    ),
    facts={
        "demand": Fact(("Yearly demand: {items}.", "We sell this much each year: {items}.",
                        "Annual demand per {I}: {items}."),
                       ("{e} {V}",), label="yearly demand"),
        "setup": Fact(("Each order costs us, whatever its size ({unit_setup}): {items}.",
                       "Placing one order costs {items}.",
                       "The fixed cost of an order: {items}."),
                      ("{e} {V}",), label="cost per order"),
        "hold": Fact(("Holding one {one} in stock for a year costs ({unit_hold}): {items}.",
                      "The yearly holding cost of one {one}: {items}.",
                      "What it costs to keep one {one} for a year: {items}."),
                     ("{e} {V}",), label="holding cost"),
        "space": Fact(("Each {one} takes this much of the {space} ({unit_space}): {items}.",
                       "Room needed per {one}: {items}.",
                       "Space taken by one {one}: {items}."),
                      ("{e} {V}",), label="room per {one}"),
        "room": Fact(("The {space} has {V} in all.", "We have {V} of {space}.",
                      "Our {space} offers {V}."), label="room available"),
        "min_lot": Fact(("The suppliers' minimum order sizes: {items}.",
                         "No supplier takes an order below {items}.",
                         "The smallest lots we may order: {items}."),
                        ("{e} {V}",), label="minimum order"),
    },
    rules=(
        Rule(("cover_demand",), ("Over the year, the number of orders of each {I} times its "
                                 "lot size must cover its yearly demand.",
                                 "We order each {I} often enough that its lots add up to at "
                                 "least its yearly demand.",
                                 "The lots of a {I} ordered in a year must cover that "
                                 "{I}'s demand."),
             ("The orders of a {I} cover its yearly demand.",)),
        Rule(("space_limit",), ("A full lot of every {I} must fit into the {space} at the "
                                "same time.",
                                "The lots together, each at its full size, cannot take more "
                                "room than the {space} has.",
                                "Deliveries can arrive together, so the full lots of all "
                                "{Is} have to fit in the {space} at once."),
             ("The lots fit in the {space} together.",)),
        Rule((), ("No lot may be smaller than the supplier's minimum for that {I}.",
                  "Every order must be at least the supplier's minimum.")),
        Rule((), ("On average we hold half a lot of each {I}: stock runs down steadily from "
                  "a full lot to nothing before the next one arrives.",
                  "Stock of a {I} falls evenly from a full lot to zero, so we hold half a "
                  "lot on average.")),
        divisible(("q", "n"), "Lot sizes and orders per year need not be whole numbers; they "
                  "are yearly averages.",
                  "Fractional lot sizes and order counts are fine."),
    ),
    goals=("We want the yearly cost of ordering plus holding stock as low as possible.",
           "The aim is to minimise the yearly ordering and holding cost.",
           "Please keep the yearly cost of orders and stock to a minimum."),
    objective="yearly ordering and holding cost in {money}",
    asks=("What lot size should each {I} have, how many orders a year does that mean, and "
          "what does it cost?",
          "How much should we order of each {I} at a time, and at what yearly cost?"),
    report={"q": "order {v} {unit} of {i} at a time", "n": "{v} orders of {i} per year"},
)

QUADRATIC_ASSIGNMENT = Telling(
    openings=(
        "Our {org} must {put} {n_F} {Fs}{names_F} in {n_L} {Ls}{names_L}, one {F} to "
        "each {L}.",
        "We are moving {n_F} {Fs} into {n_L} {Ls}, and we want the busy pairs close "
        "together.",
        "As the {org}, I have to decide which {L} each of our {n_F} {Fs} gets.",
        "There are {n_F} {Fs}{names_F} and exactly as many {Ls}{names_L} to put them in.",
    ),
    context=(
        "Every trip between two {Fs} goes the distance between their {Ls}.",
        "Some pairs of {Fs} hardly deal with each other, others exchange a lot.",
        "The layout will stay as it is for years, so it is worth getting right.",
    ),
    facts={
        "flow": Fact(("The {flow} from each {F} to each other one ({unit_flow}): {items}.",
                      "How much {flow} goes from one {F} to another ({unit_flow}): "
                      "{items}.",
                      "Our counts of the {flow} between {Fs} ({unit_flow}): {items}."),
                     ("{e} {v}",), ("from {e}: {items}", "{e} sends {items}"),
                     label="{flow}"),
        "dist": Fact(("Distances between the {Ls} ({unit_dist}): {items}.",
                      "How far apart the {Ls} are ({unit_dist}): {items}.",
                      "The distance from each {L} to each other one ({unit_dist}): "
                      "{items}."),
                     ("{e} {v}",), ("from {e}: {items}", "{e} to {items}"),
                     label="distance"),
    },
    rules=(
        Rule(("each_facility",), ("Every {F} gets exactly one {L}.",
                                  "Each {F} goes whole into one {L}, and only one.",
                                  "No {F} may be left without {a_L}, given two or split "
                                  "between them."),
             ("Every {F} gets exactly one {L}.",)),
        Rule(("each_location",), ("Each {L} takes exactly one {F}.",
                                  "No {L} can hold two {Fs} or part of one, and none is "
                                  "left empty.",
                                  "Every {L} ends up with exactly one {F}, never two."),
             ("Every {L} holds exactly one {F}.",)),
        Rule((), ("Traffic counts in both directions: the {flow} from one {F} to another and "
                  "the {flow} back both cover the distance between their {Ls}.",
                  "Both directions count: what goes from one {F} to another and what comes "
                  "back each cover the distance between their {Ls}.")),
    ),
    goals=("We want the least total {flow} times distance: for every pair of {Fs}, the "
           "{flow} from one to the other times the distance between their {Ls}, summed over "
           "both directions.",
           "The aim is to keep the sum, over all pairs of {Fs} and both directions, of the "
           "{flow} times the distance between their {Ls} as small as possible.",
           "Please minimise the {flow} times distance, summed over every ordered pair of "
           "{Fs}."),
    objective="total {flow} times distance in {load}",
    asks=("Which {L} should each {F} get, and what is the total {flow} times distance?",
          "What layout do you recommend, and what total {flow} times distance does it give?"),
    report={"x": "{i} in {j}"},
    settled=("x",),
)

TELLINGS = {"risk_limited_portfolio": RISK_LIMITED, "pooling": POOLING,
            "lot_size_space": LOT_SIZE_SPACE, "quadratic_assignment": QUADRATIC_ASSIGNMENT}
