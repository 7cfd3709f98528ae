"""The frame a client puts around a problem: introductions, background, data and file notes,
section headings, connectives, greetings and sign-offs, drawn from seeded pools.

Frames say nothing about the model, so any of them fits any family; several are composed from
parts (a subject, a predicate, a tail) so that a corpus of thousands of statements does not
repeat a handful of sentences. Placeholders in braces are filled by the caller.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

# Colour any client may add: why the question comes up, how sure the numbers are.
BACKGROUND = (
    "Until now we have made this decision by hand.",
    "This comes up again and again, so a sound method matters more than a quick guess.",
    "Management wants an answer we can defend.",
    "The figures below are our best estimates for the period.",
    "We would like to get this right before the next planning meeting.",
    "Our spreadsheet approach has stopped scaling.",
    "A colleague suggested this could be solved exactly rather than by trial and error.",
    "The data was pulled from our systems this morning.",
    "We suspect our current plan leaves money on the table.",
    "Nothing here is unusual for us; we just want the best decision.",
    "The numbers are firm for this round.",
    "Last quarter's plan was put together in a hurry, and it showed.",
    "Our board meets on Thursday and would like a firm recommendation by then.",
    "The last time we did this by gut feeling, we regretted it.",
    "We have argued about this internally for weeks.",
    "Two of my colleagues disagree on the answer, which is why I am asking.",
    "It is a recurring question, and we want a method we can rerun.",
    "The auditors asked us how we arrive at this plan.",
    "Our old rule of thumb no longer fits the volumes we handle.",
    "I would rather have a plan I can explain than one that merely looks good.",
    "A new manager joined last month and wants the reasoning written down.",
    "We tried a few plans by hand and are not sure any of them is the best.",
)
# How a client may introduce themselves before the opening ({place}: a town, {name}: a first
# name, neither an element of the problem).
INTRODUCTIONS = (
    "I look after planning at our {place} site.", "This is {name} from the {place} office.",
    "Greetings from {place}.", "Our {place} team has a planning question.",
    "I am writing from our {place} branch.", "My name is {name}; I plan operations in {place}.",
    "{name} here, from {place}.", "A question from the {place} team:",
    "At our {place} site, ", "Here in {place}, ", "For our {place} operation, ",
    "Quick background from {place}: ", "I am {name}, and I coordinate planning in {place}.",
    "We are based in {place}.", "Our office in {place} asked me to write to you.",
    "I run the planning desk in {place}.", "{name} from {place} again, with a new question.",
    "Our {place} operation could use a second opinion.", "In {place}, ",
    "I manage the day-to-day in {place}.", "Writing on behalf of the {place} team.",
)
RULE_PREFIXES = ("Also, ", "Note that ", "Keep in mind that ", "Of course, ", "Importantly, ",
                 "On top of that, ", "In addition, ", "Remember that ", "As a rule, ",
                 "Needless to say, ", "One more thing: ", "Bear in mind that ",
                 "It goes without saying that ", "Another point: ", "Besides, ",
                 "Just as important, ", "We should add that ", "Finally, ",
                 "There is also this: ", "Do not forget that ", "What is more, ",
                 "Please note that ", "Equally, ", "For the record, ", "On a related note, ")
# Wrappers around a whole rule or goal sentence ({s}: the sentence, first letter lowered).
RULE_WRAPS = ("{S} No exceptions.", "{S} That one is non-negotiable.",
              "We also know that {s}", "Our contracts say so: {s}",
              "{S} This has always been the case.", "As before, {s}",
              "{S} Our auditors check this.", "In practice, {s}", "{S} We cannot bend this.",
              "For operational reasons, {s}", "{S} The regulator insists on it.",
              "{S} That was agreed with the unions.", "By policy, {s}",
              "{S} We learned this the hard way.", "As things stand, {s}")
GOAL_WRAPS = ("{S} That is what we will be judged on.", "In short: {s}",
              "{S} Nothing else matters as much.", "Put simply, {s}",
              "{S} That is the one number management looks at.", "Our priority is clear. {S}",
              "{S} Everything else is secondary.", "Bottom line: {s}",
              "{S} That is the figure in our quarterly review.", "Above all, {s}",
              "{S} It is the measure our targets are set in.", "What counts: {s}")
CLOSINGS = ("Happy to answer any questions.", "Let me know if anything is unclear.",
            "Thanks for looking into this.", "Any clarification, just ask.",
            "We can send more detail if needed.", "Looking forward to your answer.",
            "Call me if a number looks odd.", "A short explanation with the answer would help.",
            "We appreciate the help.", "Tell us if you need anything else from our side.")
GREETINGS = ("Hello {name},", "Hi {name},", "Dear {name},", "Good morning {name},",
             "{name}, hi.", "Dear {name} and team,", "Good afternoon {name},", "Hi all,",
             "Dear colleagues,", "Hello team,")
SIGN_OFFS = ("Thanks in advance,", "Best regards,", "Many thanks,", "Kind regards,",
             "Cheers,", "With thanks,", "Best,", "Thank you,", "Regards,", "All the best,")
SIGNATURES = ("{name}, {role}", "{name}\n{role}", "{name} ({role})", "{name}, our {role}",
              "{name}", "— {name}, {role}")
ROLES = ("operations manager", "planning lead", "head of logistics", "site manager",
         "finance controller", "programme director", "scheduling coordinator",
         "supply chain analyst", "service manager", "chief engineer", "network planner",
         "production supervisor", "procurement officer", "general manager")
LETTER_RULE_LEADS = ("A few things we cannot change:", "Some constraints:",
                     "Please keep in mind:", "The ground rules:", "What we have to respect:",
                     "A plan has to satisfy the following:", "Our conditions are these:",
                     "Whatever we decide must respect these points:", "The limits we work within:",
                     "Points to respect:", "What the plan must honour:")
# What a client may put before a title.
TITLE_PREFIXES = ("Urgent: ", "For review: ", "Follow-up: ", "Second opinion wanted: ",
                  "Quick question: ", "Revised: ", "Draft plan: ", "New request: ", "FYI: ",
                  "Decision needed: ")
# Section headings of a brief and field labels of a ticket: several names for each part.
BRIEF_HEADINGS = {
    "situation": ("Situation", "Background", "Context", "Where we stand", "The set-up",
                  "Overview"),
    "data": ("Data", "Figures", "The numbers", "What we know", "Inputs", "Facts and figures"),
    "rules": ("Rules", "Constraints", "Conditions", "Requirements", "What must hold",
              "Restrictions", "Limits"),
    "ask": ("What we need", "The question", "Goal", "What we want to know", "Our question",
            "The ask", "Deliverable", "Objective and question"),
}
HEADING_STYLES = ("### {h}", "**{h}**", "{h}:", "#### {h}")
TICKET_FIELDS = {
    "subject": ("Subject", "Topic", "Re", "Title"),
    "context": ("Context", "Background", "Description", "Situation"),
    "request": ("Request", "Question", "Ask", "What we need"),
    "rules": ("Constraints", "Rules", "Conditions", "Requirements", "Limits"),
    "goal": ("Objective", "Goal", "Aim", "Target", "Success measure"),
}
# Data notes, composed: (subject, its verb agreeing) x predicate x tail.
_DT_SUBJECTS = (("The figures", "are"), ("Our figures", "are"), ("The numbers", "are"),
                ("All the data", "is"), ("Everything we know", "is"), ("The data we have", "is"),
                ("What we have on file", "is"), ("Our latest numbers", "are"),
                ("The planning data", "is"), ("The relevant figures", "are"))
_DT_PREDICATES = ("{be} in the tables below", "{be} set out in the following tables",
                  "{be} laid out below, one table per kind of figure",
                  "{be} given in the tables that follow", "{be} summarised in the tables below",
                  "{be} copied from our planning sheet into the tables below",
                  "{be} in these tables")
_DT_TAILS = ("", " for this round", " as of this week", ", as exported from our system",
             ", checked by our team")
DT_NOTES = ("Here are the numbers.", "These are the figures we work with.",
            "Below are our figures, one row per {big}.",
            "I have put the data for all {n_big} {bigs} in tables.",
            "Our planning sheet, copied as tables:", "The data, as it stands today:",
            "Each table below lists our {bigs} with their figures.",
            "For reference, here are the current figures.", "The relevant numbers follow.",
            "Tables first, questions after.", "See the tables for the details.")
_DPS_SUBJECTS = (("All the figures", "are"), ("The numbers", "are"), ("Our data", "is"),
                 ("Every figure we use", "is"), ("The data", "is"), ("The inputs", "are"),
                 ("Our current numbers", "are"), ("Everything you need", "is"))
_DPS_PREDICATES = ("{be} in `data.json`", "{be} in the attached file `data.json`",
                   "{be} in `data.json`, next to this note", "{be} collected in `data.json`",
                   "{be} exported to `data.json`", "{be} stored as JSON in `data.json`",
                   "{be} in one JSON file, `data.json`")
DPS_NOTES = ("You will find the data in `data.json`.",
             "I exported everything about our {bigs} to `data.json`.",
             "Rather than paste the numbers here, I attach `data.json`.",
             "`data.json` holds the figures for all {n_big} {bigs}.",
             "Our system produced `data.json` with the current figures.",
             "Please take the numbers from the attached `data.json`.",
             "Attached is `data.json`; it has every figure mentioned here.")


def pick(rng: np.random.Generator, options: Sequence[str]) -> str:
    """One of ``options``, drawn by ``rng``."""
    return options[int(rng.integers(len(options)))]


def _composed(rng: np.random.Generator, subjects: Sequence[tuple[str, str]],
              predicates: Sequence[str], tails: Sequence[str]) -> str:
    subject, be = subjects[int(rng.integers(len(subjects)))]
    return f"{subject} {pick(rng, predicates).format(be=be)}{pick(rng, tails)}."


def dt_note(rng: np.random.Generator) -> str:
    """The sentence before the tables of a DT statement ({big}, {bigs}, {n_big} to fill)."""
    if rng.random() < 0.6:
        return _composed(rng, _DT_SUBJECTS, _DT_PREDICATES, _DT_TAILS)
    return pick(rng, DT_NOTES)


def dps_note(rng: np.random.Generator) -> str:
    """The sentence that names the data file of a DPS statement ({bigs}, {n_big} to fill)."""
    if rng.random() < 0.6:
        return _composed(rng, _DPS_SUBJECTS, _DPS_PREDICATES, ("", " for this round",
                                                                ", as of this morning"))
    return pick(rng, DPS_NOTES)


def heading(rng: np.random.Generator, part: str, style: str) -> str:
    """A brief's heading for ``part`` in ``style`` (one style per statement)."""
    return style.format(h=pick(rng, BRIEF_HEADINGS[part]))


def field(rng: np.random.Generator, part: str) -> str:
    """A ticket's field label for ``part``, bold, with its colon."""
    return f"**{pick(rng, TICKET_FIELDS[part])}:**"
