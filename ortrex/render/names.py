"""Names for the elements of a set, as the people in the story would call them.

A vocabulary names each set by a *kind*: ``town`` (real place names from faker's address data,
several countries), ``person`` (first names) and ``surname`` (faker's person data), ``codename``,
time periods (``quarter``, ``month``, ``week``, ``weekday``, ``hour``, ``year``, ``shift``),
``letter``, a curated domain list (``list:<key>``), or ``code:<prefix>`` for things people
really label by code (crates, bins, cutting patterns). Names are single identifier-safe words
(they become model and program names too) and are drawn with the instance's own random stream,
so an instance is reproducible from its seed. A pool too small for a large set continues with
numbered names (``Oak2``).
"""

from __future__ import annotations

import importlib
import re
from functools import cache

import numpy as np

_TOWN_LOCALES = ("de_DE", "nl_NL", "it_IT", "fi_FI", "pt_PT", "ro_RO", "sv_SE", "pl_PL",
                 "en_IN", "id_ID", "hr_HR", "sl_SI", "en_BD")
_PERSON_LOCALES = ("en_US", "en_GB", "en_IN", "en_NZ", "es_ES", "it_IT", "nl_NL", "sv_SE",
                   "de_DE", "fr_FR")

CODENAMES = (
    "Atlas", "Beacon", "Cedar", "Delta", "Ember", "Falcon", "Granite", "Harbor", "Iris",
    "Juniper", "Kestrel", "Lumen", "Maple", "Nimbus", "Onyx", "Pioneer", "Quartz", "Raven",
    "Summit", "Tundra", "Umber", "Vertex", "Willow", "Zephyr", "Aurora", "Basalt", "Cobalt",
    "Dune", "Echo", "Fjord", "Glacier", "Horizon", "Indigo", "Jasper", "Keystone", "Lotus",
    "Meridian", "Nova", "Orchid", "Pinnacle", "Quill", "Redwood", "Sierra", "Topaz", "Unity",
    "Vanguard", "Wren", "Yarrow", "Acacia", "Bramble", "Comet", "Drift", "Elm", "Flint",
    "Garnet", "Hawthorn", "Ion", "Jade", "Kite", "Lark", "Mistral", "Nectar", "Oasis",
    "Pebble", "Quasar", "Ridge", "Saffron", "Tide", "Upland", "Vesper", "Wisp", "Alder",
    "Birch", "Cirrus", "Dawn", "Eclipse", "Fern", "Gale", "Heron", "Ivy", "Jetty", "Kelp",
    "Larch", "Mosaic", "Nomad", "Opal", "Prairie", "Rook", "Sable", "Thistle", "Valley",
    "Willowbrook", "Amber", "Blaze", "Canyon", "Dusk", "Everest", "Foxglove", "Gemini",
    "Halcyon", "Ironwood", "Jubilee", "Kingfisher", "Lantern", "Mariner", "Northstar",
    "Obsidian", "Pegasus", "Rainier", "Solstice", "Trident", "Ursa", "Voyager", "Westwind")

LISTS: dict[str, tuple[str, ...]] = {
    "grain": ("Maize", "Barley", "Wheat", "Sorghum", "Oats", "Rye", "Triticale", "Millet",
              "Soymeal", "Rapeseed", "Sunflower", "Bran", "Lupin", "Peas", "Cassava",
              "Alfalfa", "Molasses", "Linseed", "Beetpulp", "Gluten"),
    "feed_nutrient": ("Protein", "Fibre", "Energy", "Calcium", "Phosphorus", "Lysine",
                      "Methionine", "Fat", "Sodium", "Magnesium", "Starch", "Ash"),
    "food_nutrient": ("Protein", "Fibre", "Calcium", "Iron", "VitaminC", "VitaminA",
                      "Potassium", "Magnesium", "Zinc", "Folate", "Energy", "Omega3"),
    "stream": ("Reformate", "Alkylate", "Isomerate", "Naphtha", "Butane", "Raffinate",
               "Ethanol", "Kerosene", "Gasoil", "Cracked", "Hydrocrackate", "Coker",
               "Straightrun", "Polymer", "Aromatics"),
    "fuel_property": ("Octane", "Sulphur", "Vapour", "Density", "Aromatics", "Olefins",
                      "Benzene", "Oxygen", "Viscosity", "Cetane"),
    "excipient": ("Lactose", "Cellulose", "Starch", "Mannitol", "Sorbitol", "Talc",
                  "Povidone", "Crospovidone", "Silica", "Stearate", "Dextrose", "Sucrose",
                  "Xylitol", "Gelatin", "Maltodextrin"),
    "api": ("Ibuprofen", "Paracetamol", "Caffeine", "Aspirin", "Codeine", "Loratadine",
            "Metformin", "Naproxen", "Cetirizine", "Omeprazole"),
    "hospital_food": ("Porridge", "Omelette", "Lentils", "Rice", "Yoghurt", "Soup", "Salmon",
                      "Chicken", "Tofu", "Broccoli", "Carrots", "Apples", "Bananas", "Bread",
                      "Pasta", "Beans", "Cheese", "Oranges", "Spinach", "Quinoa"),
    "feedstuff": ("Hay", "Silage", "Maize", "Barley", "Soymeal", "Beetpulp", "Straw",
                  "Grass", "Oats", "Rapeseed", "Molasses", "Brewers", "Bran", "Lupin"),
    "dish": ("Lasagne", "Risotto", "Curry", "Chili", "Couscous", "Stew", "Paella", "Salad",
             "Goulash", "Burrito", "Falafel", "Pilaf", "Ratatouille", "Frittata", "Gnocchi",
             "Dhal", "Moussaka", "Tagine", "Noodles", "Quiche"),
    "school_nutrient": ("Protein", "Fibre", "Calcium", "Iron", "VitaminC", "Energy",
                        "Wholegrain", "Vegetables"),
    "product": ("Bracket", "Hinge", "Gasket", "Valve", "Sprocket", "Bushing", "Flange",
                "Coupling", "Spindle", "Pulley", "Bearing", "Clamp", "Housing", "Impeller",
                "Manifold", "Piston", "Rotor", "Shaft", "Spacer", "Nozzle"),
    "canned_good": ("Tomatoes", "Peaches", "Chickpeas", "Sweetcorn", "Tuna", "Beans",
                    "Pears", "Soup", "Pineapple", "Mushrooms", "Sardines", "Lentils"),
    "fuel_grade": ("Biodiesel", "Bioethanol", "HVO", "Biokerosene", "Biomethanol",
                   "Renewable", "Blend", "Premium", "Marine", "Winter"),
    "ward": ("Cardiology", "Oncology", "Maternity", "Paediatrics", "Orthopaedics",
             "Neurology", "Geriatrics", "Surgery", "Urology", "Dermatology", "Respiratory",
             "Emergency", "Renal", "Stroke", "Haematology"),
    "service": ("Auth", "Billing", "Search", "Checkout", "Catalog", "Inventory", "Payments",
                "Gateway", "Ledger", "Mailer", "Scheduler", "Reports", "Profiles", "Media",
                "Analytics", "Notify", "Pricing", "Recommend", "Session", "Uploads"),
    "job": ("Rewiring", "Boiler", "Roofing", "Plumbing", "Glazing", "Painting", "Flooring",
            "Insulation", "Tiling", "Ducting", "Alarm", "Lighting", "Fencing", "Decking",
            "Guttering"),
    "bakery": ("Baguettes", "Croissants", "Brioche", "Sourdough", "Bagels", "Muffins",
               "Scones", "Ciabatta", "Pretzels", "Focaccia", "Rolls", "Pies", "Tarts",
               "Cookies", "Danishes", "Cakes", "Buns", "Flatbread", "Rye", "Wholemeal"),
    "topic": ("Statistics", "Calculus", "Algebra", "Databases", "Networks", "Security",
              "Compilers", "Graphics", "Ethics", "Economics", "Optimisation", "Robotics",
              "Logic", "Geometry", "Finance", "Marketing", "Accounting", "Chemistry",
              "Genetics", "Ecology"),
    "crop": ("Wheat", "Barley", "Maize", "Soybeans", "Canola", "Potatoes", "Sunflower",
             "Sugarbeet", "Oats", "Lentils", "Peas", "Rice", "Cotton", "Sorghum", "Hemp"),
    # Inventory and planning families (ortrex/engine/families/inventory.py): finished goods,
    # their intermediates and raw materials, drinks, and the teams a workforce plan staffs.
    "gadget": ("Smartphone", "Tablet", "Laptop", "Smartwatch", "Speaker", "Router", "Camera",
               "Drone", "Monitor", "Console", "Projector", "Headset", "Ereader", "Soundbar"),
    "furniture_line": ("Sofa", "Armchair", "Wardrobe", "Bookcase", "Desk", "Dresser",
                       "Sideboard", "Bedframe", "Cabinet", "Ottoman", "Recliner", "Bench"),
    "paint": ("Gloss", "Matt", "Satin", "Eggshell", "Primer", "Undercoat", "Varnish",
              "Lacquer", "Enamel", "Woodstain", "Masonry", "Emulsion"),
    "paint_base": ("Resin", "Tint", "Binder", "Dispersion", "Millbase", "Thinner", "Sealer",
                   "Paste"),
    "paint_raw": ("Titanium", "Solvent", "Acrylic", "Alkyd", "Talc", "Kaolin", "Calcite",
                  "Silica", "Glycol", "Oxide", "Mica", "Wax"),
    "sauce": ("Bechamel", "Ragu", "Dough", "Broth", "Pesto", "Marinade", "Batter", "Roux",
              "Salsa", "Gravy"),
    "meal_ingredient": ("Flour", "Cream", "Cheese", "Onion", "Tomato", "Butter", "Basil",
                        "Garlic", "Milk", "Oil", "Pepper", "Carrot", "Celery", "Mushroom"),
    "granulate": ("Granulate", "Premix", "Coating", "Binder", "Suspension", "Blend", "Slurry",
                  "Syrup", "Film", "Core"),
    "beverage": ("Lager", "Pilsner", "Stout", "Porter", "Cider", "Kombucha", "Lemonade", "Cola",
                 "Tonic", "Seltzer", "Shandy", "Radler", "Saison", "Bock"),
    "contact_desk": ("Billing", "Technical", "Retention", "Helpdesk", "Onboarding", "Payroll",
                     "Insurance", "Roaming", "Broadband", "Mortgage"),
    "warehouse_section": ("Picking", "Packing", "Receiving", "Loading", "Replenishment",
                          "Dispatch", "Sorting", "Kitting", "Labelling", "Putaway"),
    "department": ("Grocery", "Bakery", "Deli", "Pharmacy", "Clothing", "Garden", "Hardware",
                   "Homeware", "Checkout", "Butchery", "Florist"),
    "technology": ("Solar", "Wind", "Hydro", "Gas", "Nuclear", "Biomass", "Geothermal",
                   "Offshore", "Storage", "Coal", "Tidal", "Cogeneration"),
    # Word problems (ortrex/engine/families/word_problems.py).
    "furniture": ("Chairs", "Tables", "Desks", "Stools", "Benches", "Shelves", "Cabinets",
                  "Dressers", "Bookcases", "Wardrobes", "Sideboards", "Armchairs"),
    "workstation": ("Cutting", "Assembly", "Sanding", "Finishing", "Painting", "Upholstery",
                    "Drilling", "Packing", "Gluing", "Polishing"),
    "farm_task": ("Ploughing", "Sowing", "Spraying", "Harvesting", "Irrigation", "Weeding",
                  "Hauling", "Fertilising"),
    "ad_channel": ("Radio", "Television", "Newspaper", "Billboards", "Podcasts", "Magazines",
                   "Cinema", "Transit", "Flyers", "Social", "Search", "Email"),
    "ad_team": ("Copywriting", "Design", "Studio", "Editing", "Legal", "Planning",
                "Production"),
    "coffee_blend": ("Espresso", "Breakfast", "Decaf", "Mocha", "Colombia", "Kenya",
                     "Sumatra", "Brazil", "Guatemala", "Ethiopia", "Java", "House"),
    "roastery_step": ("Roasting", "Cooling", "Grinding", "Packing", "Blending", "Sorting",
                      "Degassing"),
    "truck_type": ("Light", "Medium", "Heavy", "Flatbed", "Tipper", "Reefer", "Curtainsider",
                   "Boxbody"),
    "press_type": ("Hydraulic", "Mechanical", "Servo", "Pneumatic", "Electric", "Hybrid",
                   "Screw"),
    "oven_type": ("Deck", "Convection", "Rotary", "Tunnel", "Combi", "Conveyor", "Brick",
                  "Rack"),
    "generator_type": ("Diesel", "Gas", "Biogas", "Propane", "Petrol", "Biodiesel",
                       "Methanol"),
    "raw_material": ("Steel", "Aluminium", "Copper", "Plastic", "Rubber", "Glass", "Timber",
                     "Brass", "Zinc", "Nickel"),
    "bakery_step": ("Mixing", "Proving", "Baking", "Decorating", "Packing", "Cooling"),
    "ingredient": ("Flour", "Butter", "Sugar", "Eggs", "Chocolate", "Cream", "Yeast", "Milk",
                   "Almonds", "Honey", "Oats", "Raisins"),
    "plant_unit": ("Reactor", "Distillation", "Blending", "Pretreatment", "Dryer",
                   "Separator"),
    "feedstock": ("Rapeseed", "Tallow", "Sugarcane", "Maize", "Straw", "Soybean", "Camelina",
                  "Jatropha", "Sawdust"),
    "building_material": ("Cement", "Sand", "Gravel", "Rebar", "Bricks", "Timber", "Lime",
                          "Asphalt", "Tiles", "Gypsum"),
    "ticker": ("ACME", "BRVX", "CELT", "DYNA", "EQTR", "FLUX", "GRNT", "HELX", "INFR", "JOVI",
               "KNTC", "LUMA", "MRDN", "NOVA", "ORBT", "PRSM", "QNTM", "RVLN", "SOLR", "TERA",
               "UMBR", "VRTX", "WAVE", "XENO", "YLDR", "ZENT"),
    "shift": ("Early", "Day", "Late", "Night", "Twilight", "Dawn", "Split", "Evening",
              "Graveyard", "Swing"),
    "dimension": ("Weight", "Volume", "Length", "Pallets", "Axle", "Floor"),
    "budget_line": ("Capex", "Opex", "Staff", "Equipment", "Travel", "Licences", "Research"),
    "resource": ("Storage", "Bandwidth", "Memory", "Compute", "Transcoding", "Licences"),
    "video": ("Keynote", "Trailer", "Tutorial", "Interview", "Highlights", "Recap", "Demo",
              "Webinar", "Documentary", "Livestream", "Podcast", "Teaser", "Unboxing",
              "Review", "Masterclass", "Vlog", "Concert", "Briefing", "Lecture", "Premiere"),
    # Shop-floor and project resources (ortrex/engine/families/shops.py).
    "machine_tool": ("Lathe", "Mill", "Drill", "Grinder", "Saw", "Press", "Borer", "Shaper",
                     "Planer", "Hone", "Broach", "Router"),
    "diagnostic": ("Xray", "Ultrasound", "Scanner", "Bloodwork", "Cardiology", "Endoscopy",
                   "Audiology", "Spirometry", "Dexa", "Mammography"),
    "kitchen_station": ("Grill", "Oven", "Fryer", "Wok", "Pastry", "Salads", "Sauces",
                        "Carvery", "Smoker", "Tandoor"),
    "trade": ("Carpenters", "Electricians", "Plumbers", "Labourers", "Painters", "Roofers",
              "Masons", "Welders", "Fitters", "Riggers", "Scaffolders", "Glaziers"),
    "team": ("Backend", "Frontend", "Testers", "DevOps", "Designers", "Analysts", "Security",
             "Mobile"),
    "plant_crew": ("Fitters", "Riggers", "Welders", "Electricians", "Scaffolders",
                   "Insulators", "Inspectors", "Pipefitters"),
    "crude": ("Brent", "Forties", "Urals", "Maya", "Bonny", "Basrah", "Oman", "Dubai", "Tapis", "Ekofisk", "Azeri", "Kirkuk", "Murban", "Saharan", "Girassol", "Cabinda", "Midland", "Johan"),  # noqa: E501
    "refinery_fuel": ("Diesel", "Gasoil", "Kerosene", "Bunker", "Naphtha", "Petrol", "Paraffin", "Propane", "Butane", "Asphalt", "Lubricant", "Distillate"),  # noqa: E501
    "equity_sector": ("Technology", "Healthcare", "Utilities", "Energy", "Financials", "Consumer", "Industrials", "Materials"),  # noqa: E501
    "asset_class": ("Equities", "Bonds", "Property", "Infrastructure", "Credit", "Cash", "Commodities", "Gilts"),  # noqa: E501
}
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
_WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")


# Real names that read as something else: a placeholder the fidelity gate rejects (None is a
# town in Piedmont), a constant of a program, a word of the statement's own grammar.
# Words that are no names, and names that are English function words (the language gate reads
# "My name is Per; ..." as "per" before a semicolon, a lost noun).
_NOT_NAMES = frozenset({"None", "True", "False", "Nan", "Null", "Todo", "Total", "Each",
                        "Every", "All", "Otherwise", "If", "Minimum", "Maximum", "Per", "Will",
                        "May", "Can", "Are", "Was", "Has", "Had", "The", "And", "For", "Not",
                        "But", "Nor", "Yet", "Its", "Our", "You", "Who", "Any", "Few"})


# Endings the language gate reads as a plural built by concatenation ("Rhys" as of "Rhy",
# "Heinrichs"): a name that looks like a malformed word is left out of the pools.
_MISREAD = re.compile(
    r"(?:[b-df-hj-np-tv-xz]ys|(?:sh|ch|x|z)s|[b-df-hj-np-rtv-xz]ss|iess|sss|(?:x|sh|z)ess)$")


def _ascii_word(w: str) -> bool:
    return w.isascii() and w.isalpha() and w[:1].isupper() and 3 <= len(w) <= 14 and \
        w not in _NOT_NAMES and not _MISREAD.search(w.lower())


@cache
def _faker_pool(kind: str) -> tuple[str, ...]:
    """Real place, first and last names from faker's locale data (sorted: reproducible)."""
    out: set[str] = set()
    if kind == "town":
        for loc in _TOWN_LOCALES:
            try:
                provider = importlib.import_module(f"faker.providers.address.{loc}").Provider
            except ImportError:
                continue
            out.update(w for w in getattr(provider, "cities", ()) if _ascii_word(w))
    else:
        attr = "first_names" if kind == "person" else "last_names"
        for loc in _PERSON_LOCALES:
            try:
                provider = importlib.import_module(f"faker.providers.person.{loc}").Provider
            except ImportError:
                continue
            out.update(w for w in getattr(provider, attr, ()) if _ascii_word(w))
    return tuple(sorted(out))


def _periods(kind: str, n: int) -> list[str]:
    if kind == "quarter":
        return [f"Q{k % 4 + 1}" + (f"y{k // 4 + 1}" if n > 4 else "") for k in range(n)]
    if kind == "month":
        return [_MONTHS[k % 12] + (str(k // 12 + 1) if n > 12 else "") for k in range(n)]
    if kind == "weekday":
        return [_WEEKDAYS[k % 7] + (str(k // 7 + 1) if n > 7 else "") for k in range(n)]
    if kind == "week":
        return [f"Wk{k + 1}" for k in range(n)]
    if kind == "hour":
        return [(f"{h % 12 or 12}{'am' if h % 24 < 12 else 'pm'}" if n <= 24 else f"h{h}")
                for h in ((6 + k) % 24 if n <= 18 else k for k in range(n))]
    if kind == "year":
        return [f"FY{2027 + k}" for k in range(n)]
    raise KeyError(kind)


@cache
def _positions(pool: tuple[str, ...]) -> dict[str, int]:
    return {w: k for k, w in enumerate(pool)}


class _Free:
    """``[w for w in pool if w not in taken]`` without building it (pools hold thousands of
    names and an instance takes a handful)."""

    def __init__(self, pool: tuple[str, ...], taken: set[str]) -> None:
        pos = _positions(pool)
        self.pool = pool
        self.gone = sorted(pos[w] for w in taken if w in pos)

    def __len__(self) -> int:
        return len(self.pool) - len(self.gone)

    def __getitem__(self, k: int) -> str:
        for g in self.gone:  # the k-th name not taken: skip each taken one at or before it
            if g <= k:
                k += 1
            else:
                break
        return self.pool[k]

    def __iter__(self):  # type: ignore[no-untyped-def]
        return (self[k] for k in range(len(self)))


def element_names(kind: str, n: int, rng: np.random.Generator,
                  taken: set[str] | None = None) -> tuple[str, ...]:
    """``n`` distinct names of ``kind`` (none already in ``taken``, which is updated)."""
    taken = set() if taken is None else taken
    if kind in ("quarter", "month", "weekday", "week", "hour", "year"):
        names = _periods(kind, n)
    elif kind == "letter":
        names = [chr(65 + k % 26) + (str(k // 26 + 1) if n > 26 else "") for k in range(n)]
    elif kind.startswith("code:"):
        prefix = kind[5:]
        names = [f"{prefix}{k + 1}" for k in range(n)]
    else:
        if kind in ("town", "person", "surname"):
            pool = _faker_pool(kind)
        elif kind == "codename":
            pool = CODENAMES
        elif kind.startswith("list:"):
            pool = LISTS[kind[5:]]
        elif kind == "shift":
            pool = LISTS["shift"]
        else:
            raise KeyError(f"unknown name kind {kind!r}")
        free = _Free(pool, taken)
        order = rng.permutation(len(free)) if kind not in ("shift",) else range(len(free))
        names = [free[int(k)] for k in order[:n]]  # the first n only: pools hold thousands
        chosen, k = set(names), 2
        while len(names) < n:  # a large set (or a spent pool): the pool again, numbered
            for w in pool:
                w = f"{w}{k}"
                if w not in taken and w not in chosen:
                    names.append(w)
                    chosen.add(w)
                    if len(names) == n:
                        break
            k += 1
    taken.update(names)
    return tuple(names)


_KINDS = ("town", "person", "surname", "codename", "quarter", "month", "weekday", "week",
          "hour", "year", "letter", "shift")


def name_kind(kind: str) -> str:
    """A vocabulary's name kind; a bare prefix (``"DEP"``) means codes (``code:DEP``)."""
    if kind in _KINDS or kind.startswith(("list:", "code:")):
        return kind
    return f"code:{kind or 'E'}"


def person_name(rng: np.random.Generator) -> str:
    """A first and last name (who signs a letter)."""
    first, last = _faker_pool("person"), _faker_pool("surname")
    return f"{first[int(rng.integers(len(first)))]} {last[int(rng.integers(len(last)))]}"
