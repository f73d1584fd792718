"""The fine-tuning experiment's data plumbing (``bench/finetune_turn_reader.py``): folds by person, neighbours
inside a conversation, the short inputs and the sampled negatives' weights. Torch is not needed for any of it
(CI never installs it). The turns are invented (a beekeeper and a tram driver); no development file has them.
Pure: no database.
"""

from __future__ import annotations

import pytest

from bench import finetune_turn_reader as ft


def turn(set_name, group, conversation, position, label, text="I keep bees on the roof.", is_owner=True, weight=1.0):
    return {
        "set": set_name,
        "group": group,
        "conversation": conversation,
        "position": position,
        "label": label,
        "masked": text,
        "is_owner": is_owner,
        "weight": weight,
    }


def test_folds_keep_a_wearer_together_and_spread_persona_chats_round_robin():
    rows = [turn("days", f"days:{w}", f"{w}:c", 0, 0) for w in ("wearer b", "wearer a", "wearer b")]
    rows += [turn("persona", f"persona:{i:04d}", f"persona:{i:04d}", 0, 0) for i in range(3)]
    rows.append(turn("locomo", "locomo:conv", "locomo:conv", 0, 1))

    wearers, units = ft.fold_units(rows)

    assert wearers == ["wearer a", "wearer b"]
    assert units == ["wearer b", "wearer a", "wearer b", "wearer a", "wearer b", "wearer a", "locomo"]


def test_neighbours_stay_inside_their_conversation():
    rows = [
        turn("days", "days:w", "one", 1, 0),
        turn("days", "days:w", "two", 0, 0),
        turn("days", "days:w", "one", 0, 0),
    ]

    prev, nxt = ft.neighbours(rows)

    assert prev == [2, None, None]
    assert nxt == [None, None, 0]


def test_an_input_is_at_most_64_word_pieces_and_pools_only_its_own_turn():
    pytest.importorskip("tokenizers")
    try:
        _, tokenizer = ft.base_weights()
    except Exception as exc:  # the model package is installed by `make install`
        pytest.skip(f"model package missing: {exc}")
    long = "the tram depot moved its night shift to the northern line because the bridge is closed " * 6
    rows = [turn("days", "days:w", "c", k, 0, text=long, is_owner=k == 1) for k in range(3)]

    inputs = ft.tokenise(rows, tokenizer)

    ids, types, own = inputs[1]
    assert len(ids) <= 64
    assert own == ft.TURN_TOKENS + 2  # [CLS], the turn's first word pieces, [SEP]
    assert types[:own] == [0] * own and set(types[own:]) == {1}  # the neighbours are the second segment
    assert len(inputs[0][0]) < len(ids)  # the first turn has no previous one


def test_sampled_negatives_weigh_what_their_whole_set_would_and_each_set_the_same():
    rows = [turn("days", "days:w", "c", k, 1 if k < 20 else 0) for k in range(200)]
    rows += [
        turn("persona", "persona:0001", "p", k, 1 if k < 10 else 0, weight=1.0 if k < 10 else 0.3) for k in range(300)
    ]
    everything = list(range(len(rows)))

    sample = ft.negative_sample(rows, everything)
    weights = ft.sample_weights(rows, sample)

    assert all(i in sample for i in everything if rows[i]["label"])  # every positive is kept
    days_neg = sum(1 for i in sample if rows[i]["set"] == "days" and not rows[i]["label"])
    assert 0 < days_neg < 180
    a_days_negative = next(i for i in sample if rows[i]["set"] == "days" and not rows[i]["label"])
    a_days_positive = next(i for i in sample if rows[i]["set"] == "days" and rows[i]["label"])
    assert weights[a_days_negative] == pytest.approx(weights[a_days_positive] / ft.NEGATIVE_SHARE["days"])
    # Leaving out the persona chats' own 0.3 on unlabelled turns, each set weighs the same in all.
    per_set = {
        s: sum(weights[i] / rows[i]["weight"] for i in sample if rows[i]["set"] == s) for s in ("days", "persona")
    }
    assert per_set["days"] == pytest.approx(per_set["persona"])
