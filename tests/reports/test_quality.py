"""Corpus-quality measures on small hand-made corpora whose values are known by hand."""

from __future__ import annotations

from ortrex.reports.quality import (
    declares_variables,
    distinct_n,
    measure,
    prose,
    sentences,
    skeleton,
    tokens,
)


def test_tokens_map_numbers_to_one_token() -> None:
    assert tokens("Ship 1,200.5 kg to Oslo, 3e-05 each (12%).") == [
        "ship", "<num>", "kg", "to", "oslo", ",", "<num>", "each", "(", "<num>", ")", "."]


def test_distinct_n_by_hand() -> None:
    docs = [["a", "b", "a", "b"], ["a", "b"]]
    # bigrams: ab ba ab | ab -> 2 distinct of 4; trigrams: aba bab -> 2 of 2
    assert distinct_n(docs, 2) == 0.5
    assert distinct_n(docs, 3) == 1.0
    assert distinct_n([["a"]], 2) == 0.0


def test_sentences_skip_tables_markup_and_short_lines() -> None:
    text = ("## Data\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n- Each depot ships at most 5 tonnes.\n"
            "Thanks!\nWe want the cheapest plan. Could you help?")
    assert sentences(text) == ["Each depot ships at most 5 tonnes.",
                               "We want the cheapest plan.", "Could you help?"]


def test_skeletons_keep_function_words_and_collapse_slots() -> None:
    a = skeleton("Oslo ships 12 tonnes to Bergen and Trondheim.")
    b = skeleton("Madrid sends 7 crates to Seville and Bilbao.")
    c = skeleton("Each depot ships at most 5 tonnes.")
    assert a == b == "w n w to w and w ."
    assert c == "each w at most n w ."
    assert skeleton("Oslo Bergen Trondheim 1 2 3") == "w n"


def test_declares_variables() -> None:
    assert declares_variables("Decision variables: x_ij is the amount shipped.")
    assert declares_variables("For each item i, take item i: a yes/no (0/1) choice.")
    assert declares_variables("Flow on each arc: a continuous quantity, free in sign.")
    assert declares_variables("Let x_ij be the tonnes shipped from i to j.")
    assert not declares_variables("Each item is either taken whole or left out.")
    assert not declares_variables("We ship whole pallets from three depots.")


def test_measure_on_a_hand_made_corpus() -> None:
    texts = ["Oslo ships 12 tonnes to Bergen. We want the cheapest plan.",
             "Oslo ships 12 tonnes to Bergen. We want the cheapest plan.",
             "Madrid has 7 crates for Seville. Decision variables: x is a binary variable."]
    q = measure(texts, ["t", "t", "k"], tokens_budget=10_000)
    assert q.statements == 3
    assert q.unique_openings == round(2 / 3, 3)  # two distinct first sentences
    assert q.shared_prefixes == round(2 / 3, 3)  # the two twins share their first 15 tokens
    assert q.declares_variables == round(1 / 3, 3)
    assert q.sample_tokens == sum(len(tokens(t)) for t in texts)
    # Sentences (4+ tokens): 6, of which 4 distinct shapes.
    assert q.skeletons_per_100 == round(100 * 4 / 6, 1)
    assert q.length_p50 == len(tokens(texts[0]))
    twice = measure(texts * 2, ["t", "t", "k"] * 2, tokens_budget=10_000)
    assert twice.distinct_4 < q.distinct_4  # repetition lowers distinct-n
    assert twice.vocabulary == q.vocabulary


def test_table_rows_are_data_not_language() -> None:
    table = "| Depot | Cost (USD) |\n|---|---|\n| Oslo | 12 |\n| Bergen | 7 |\n"
    text = "Each depot has a fixed cost.\n" + table + "Which depots should we open?"
    assert prose(text) == "Each depot has a fixed cost.\nWhich depots should we open?"
    q = measure([text], tokens_budget=10_000)
    assert q.sample_tokens == len(tokens(prose(text))) == 13
    assert q.vocabulary == len(set(tokens(prose(text))))
    # Two statements alike but for their tables read as one statement twice.
    other = text.replace("| 12 |", "| 99 |").replace("Bergen", "Tromso")
    assert measure([text, other], tokens_budget=10_000).distinct_4 == \
        measure([text, text], tokens_budget=10_000).distinct_4 == 0.5


def test_n_gram_measures_are_the_mean_of_seeded_draws() -> None:
    # A budget of one statement: each draw holds one of the two, so the mean lies between.
    a = "one two three four five six seven"
    b = "one one one one one one one"
    da, db = (measure([t], tokens_budget=1).distinct_4 for t in (a, b))
    mixed = measure([a, b], tokens_budget=1, seed=3).distinct_4
    assert (da, db) == (1.0, 0.25)
    assert db < mixed < da
    assert mixed == measure([a, b], tokens_budget=1, seed=3).distinct_4  # seeded
