"""The gate model: a JSON artifact read without pickle, calibrated probabilities, the attribution check, its
decisions on talk from domains in no development file, and a deterministic rebuild."""

from __future__ import annotations

import json
import pickle
from datetime import UTC, datetime

import pytest

from bench import train_gate
from distill import gate_model, pipeline, trust
from distill.extraction.base import ConversationIn, DayInput, TurnIn

T0 = datetime(2026, 9, 3, 17, 0, tzinfo=UTC)


def decisions(turns, owner="Ilse Varga"):
    """(decision, content) of every candidate the real pass makes of one conversation, in smart mode."""
    utts = [
        TurnIn(index=i, speaker_name=who, is_owner=who == owner, text=text, started_at=T0)
        for i, (who, text) in enumerate(turns)
    ]
    day = DayInput(
        owner_name=owner,
        source_kind="chat",
        conversations=[ConversationIn(started_at=T0, turns=utts)],
    )
    out = pipeline.run(pipeline.PassInput(day=day, policy=trust.Policy(), use_judge=False))
    return [(s.decision, s.candidate.content) for s in out.scored]


def test_the_shipped_artifact_is_json_and_loads_without_pickle(tmp_path):
    text = gate_model.ARTIFACT.read_text(encoding="utf-8")
    data = json.loads(text)
    assert data["format"] == gate_model.FORMAT and data["version"].startswith("gate-lr-")
    assert data["training_data"]["sha256"] and len(data["weights"]) > 100
    model = gate_model.load()
    assert 0.0 < model.review_threshold <= model.accept_threshold <= 1.0
    bad = tmp_path / "model.json"
    bad.write_bytes(pickle.dumps({"format": gate_model.FORMAT}))
    with pytest.raises(ValueError):
        gate_model.load(bad)


def test_probabilities_are_in_0_1_and_follow_the_calibration_monotonically():
    model = gate_model.shipped()
    logits = [x / 4 for x in range(-40, 41)]
    ps = [model.calibrate(x) for x in logits]
    assert len(ps) == 81 and all(0.0 <= p <= 1.0 for p in ps)
    assert all(a <= b for a, b in zip(ps, ps[1:], strict=False)) and ps[0] < ps[-1]
    view = gate_model.view({"content": "Ilse keeps bees.", "attribution": "user", "subject": "user"})
    pred = model.predict(view)
    assert 0.0 <= pred.p <= 1.0 and pred.p == pytest.approx(model.calibrate(pred.logit), abs=1e-4)


def test_an_uncertain_subject_is_never_accepted_even_by_a_model_sure_of_everything():
    sure = gate_model.GateModel("always", 16, 50.0, {}, [], [], 0.5, 0.3)
    for candidate in (
        {
            "content": "He keeps bees.",
            "attribution": "user",
            "subject": "user",
            "features": {"subject_type": "pronoun"},
        },
        {"content": "Keeps bees.", "attribution": "unknown", "subject": "unknown"},
        {"content": "Keeps bees.", "attribution": "third_party", "subject": "person:", "person": ""},
        {
            "content": "Ilse keeps bees.",
            "attribution": "user",
            "subject": "user",
            "features": {"subject_type": "owner", "attribution_confidence": 0.2},
        },
    ):
        pred = sure.predict(gate_model.view(candidate))
        assert pred.p > 0.99 and not pred.attribution_ok


def test_the_model_reads_a_candidate_as_it_reads_its_stored_json():
    """A pass scores candidates as they are; a sibling device's re-score reads them back from JSON: one view."""
    from distill.extraction.deterministic import DeterministicExtractor

    day = DayInput(
        owner_name="Ilse Varga",
        conversations=[
            ConversationIn(
                started_at=T0,
                turns=[
                    TurnIn(0, "Bartholomew", False, "Did the kiln ever get fixed?", started_at=T0),
                    TurnIn(1, "Ilse Varga", True, "Yes, and I fire glazes on Mondays now. My son Pal helps.", T0),
                ],
            )
        ],
    )
    candidates = DeterministicExtractor().extract(day).candidates
    assert len(candidates) >= 2
    for c in candidates:
        assert gate_model.view(c) == gate_model.view(json.loads(json.dumps(c.as_dict(), default=str)))


@pytest.mark.xfail(
    strict=True,
    reason="issue 19 not met yet: the shipped model's accept line (chosen on CV folds) sits above what it gives "
    "plain statements outside the persona-chat style (p 0.3-0.87); see docs/trust-gate.md",
)
def test_a_plain_durable_statement_from_a_new_domain_is_accepted():
    got = decisions(
        [
            ("Bartholomew", "So what keeps you busy these days?"),
            ("Ilse Varga", "I restore old pipe organs for churches."),
        ]
    )
    accepted = [c for d, c in got if d == trust.ACCEPTED]
    assert len(accepted) == 1 and "pipe organs" in accepted[0]


@pytest.mark.parametrize(
    "text",
    [
        "Oh fantastic, so now I'm the official llama groomer of the whole county. What a dream job!",
        "If I ever win the lottery I'm going to buy a lighthouse in Patagonia.",
    ],
)
def test_a_sarcastic_or_hypothetical_sentence_from_a_new_domain_is_not_accepted(text):
    got = decisions([("Bartholomew", "How was the week?"), ("Ilse Varga", text)])
    assert not [c for d, c in got if d == trust.ACCEPTED]


def _synthetic(n_groups: int = 6) -> tuple[list[dict], dict]:
    """A tiny training set in the cache's shape: durable statements positive, questions and jokes negative."""
    records, turns = [], {}
    for s in ("days", "locomo", "persona"):
        for g in range(n_groups):
            group = f"{s}:{g:02d}"
            turns.setdefault(s, {})[group] = 20
            for k, (quote, label) in enumerate(
                [
                    (f"I breed axolotls number {g}.", 1),
                    (f"I teach oboe lessons on day {g}.", 1),
                    (f"Would I ever breed axolotls {g}?", 0),
                    (f"Sure, I'm basically a wizard {g}, totally!", 0),
                ]
            ):
                records.append(
                    {
                        "set": s,
                        "group": group,
                        "label": label,
                        "predicate": f"other:{k}",
                        "source": "",
                        "content": "Ilse " + quote,
                        "attribution": "user",
                        "subject": "user",
                        "evidence": {"first_index": k, "last_index": k, "quote": quote},
                        "extraction_confidence": 0.8,
                        "capture_confidence": 0.9,
                        "kind": "other",
                        "features": {"subject_type": "owner", "is_question": "?" in quote},
                    }
                )
    return records, turns


def test_the_rebuild_is_deterministic_on_a_tiny_synthetic_set():
    records, turns = _synthetic()
    first, _ = train_gate.train(records, turns, bits=12)
    second, _ = train_gate.train(list(reversed(records)), turns, bits=12)
    assert train_gate.dumps(first) == train_gate.dumps(second)
    model = gate_model.GateModel.from_dict(json.loads(train_gate.dumps(first)))
    yes = model.predict(gate_model.view(records[0]))
    no = model.predict(gate_model.view(records[2]))
    assert yes.logit > no.logit


def test_the_lines_are_chosen_over_several_fold_assignments():
    """One assignment of conversations to folds moved the accept line by up to 0.06 on the development sets: the
    lines come from every assignment's held-out probabilities at once, and the artifact keeps what each alone
    would have chosen."""
    records, turns = _synthetic(n_groups=10)
    first, other = train_gate.fold_of_groups(records), train_gate.fold_of_groups(records, seed=1)
    assert set(first) == set(other) and first != other
    assert sorted(first.values()) == sorted(other.values())  # the same fold sizes, other members
    artifact, _ = train_gate.train(records, turns, bits=12)
    assert artifact["folds"]["repeats"] == train_gate.REPEATS > 1
    assert {len(lines) for lines in artifact["folds"]["lines_by_assignment"].values()} == {train_gate.REPEATS}


def test_the_same_data_read_through_other_features_is_a_new_model_version(monkeypatch):
    # A stored decision names the model that made it; a featurizer change fitted on unchanged data kept the old
    # version name before (it hashed only the data and the fitting recipe).
    records, turns = _synthetic()
    first, _ = train_gate.train(records, turns, bits=12)
    full = gate_model.featurize
    monkeypatch.setattr(gate_model, "featurize", lambda v: {n: x for n, x in full(v).items() if not n.startswith("b:")})
    second, _ = train_gate.train(records, turns, bits=12)
    assert first["weights"] != second["weights"]
    assert first["version"] != second["version"]


def _row(p: float, label: int, *, capped: bool = False, fact: str = "") -> tuple:
    record = {
        "set": "chats",
        "group": "chats:0",
        "label": label,
        "content": "Ilse repairs harpsichords.",
        "attribution": "user",
        "subject": "user",
        "capture_confidence": 0.9,
        "ceiling": trust.PENDING if capped else "",
        "ceiling_reason": "quoted or reported speech" if capped else "",
        "features": {"subject_type": "owner"},
    }
    return (p, gate_model.view(record), label, "chats", True, fact)


def test_the_accept_line_holds_its_precision_with_one_false_accept_to_spare():
    """19 true and one false above 0.9 is precision 0.95 exactly: one more false accept on other talk would
    break it, so the line keeps a margin of one and rises to where 19 true stand alone."""
    rows = [_row(0.97, 1) for _ in range(19)] + [_row(0.92, 0)] + [_row(0.6, 0) for _ in range(5)]
    accept, *_ = train_gate.choose_thresholds(rows, {"chats": {"chats:0": 1000}})
    assert accept == 0.97


def test_a_fact_accepted_twice_counts_as_one_hit_for_the_accept_line():
    """Twenty more memories of a fact already accepted are duplicates, not twenty more hits: below 0.97 the
    line would hold 20 facts and one false accept (0.95, no false accept to spare), not 40 of 41. The bench
    counts the repeats as neutral, and so does the line."""
    rows = [_row(0.97, 1, fact=f"f{n}") for n in range(20)]
    rows += [_row(0.9, 1, fact="f0") for _ in range(20)] + [_row(0.9, 0)]
    accept, _, _, stats = train_gate.choose_thresholds(rows, {"chats": {"chats:0": 1000}})
    assert accept == 0.97
    assert (stats["chats"]["acc_true"], stats["chats"]["acc_judged"]) == (20, 20)


def test_claims_a_rule_caps_at_review_get_their_own_line_so_they_cannot_veto_the_review_band():
    """Four true claims of five in the model's band are worth asking; six false capped claims of seven are
    not. One shared line would have to ask all twelve (5 of 12 true) or none."""
    rows = [_row(0.97, 1) for _ in range(30)]
    rows += [_row(0.86, 1) for _ in range(4)] + [_row(0.86, 0)]
    rows += [_row(0.9, 0, capped=True) for _ in range(6)] + [_row(0.9, 1, capped=True)]
    accept, review, capped, stats = train_gate.choose_thresholds(rows, {"chats": {"chats:0": 1000}})
    assert accept == 0.9 and review <= 0.86 and capped > 0.9  # (the lowest line that keeps 0.95 precision)
    assert (stats["chats"]["q_true"], stats["chats"]["q_lab"]) == (4, 5)


def test_a_set_measured_only_never_changes_the_model_or_its_lines():
    """LoCoMo is CC BY-NC: it is scored and reported, never fitted, calibrated on or used to choose a line. Its
    labels turned upside down change neither the weights, the calibration, the lines nor the version."""
    records, turns = _synthetic()
    first, _ = train_gate.train(records, turns, bits=12)
    flipped = [dict(r, label=1 - r["label"]) if r["set"] == "locomo" else r for r in records]
    second, _ = train_gate.train(flipped, turns, bits=12)
    for key in ("version", "weights", "intercept", "calibration", "thresholds"):
        assert first[key] == second[key]
    assert first["training_data"]["trained_on"] == ["days", "persona"]
    assert first["training_data"]["measured_only"] == ["locomo"]
    assert first["training_data"]["counts"]["locomo"]["fitted"] == 0
    scores = first["folds"]["out_of_fold"]
    assert scores["locomo"]["scored_by"].startswith("the final model")
    assert scores["locomo"]["auc"] != second["folds"]["out_of_fold"]["locomo"]["auc"]  # (still measured)


def test_a_wearers_days_stay_in_one_fold_in_every_assignment():
    """Leave one wearer out: a model that saw some of a person's days must never score that person's other days."""
    records, _ = _synthetic(n_groups=12)
    wearer = {f"days:{g:02d}": f"wearer-{g % 4}" for g in range(12)}
    for seed in range(train_gate.REPEATS):
        folds = train_gate.fold_of_groups(records, seed=seed, units=wearer)
        by_wearer = {}
        for group, name in wearer.items():
            by_wearer.setdefault(name, set()).add(folds[group])
        assert len(by_wearer) == 4 and all(len(f) == 1 for f in by_wearer.values())
        assert len({folds[g] for g in wearer}) == 4  # four wearers, four folds: no two share one
        assert len({folds[f"persona:{g:02d}"] for g in range(12)}) == train_gate.FOLDS  # persona by conversation


@pytest.mark.parametrize(
    ("person", "content", "quote"),
    [
        ("Teodora", "Teodora's brother mends Oskar's nets.", "My brother mends Oskar's nets, he does."),
        ("", "Wenonah runs the ferry café in Ullapool.", "I run the ferry café in Ullapool now."),
        ("Bartholomew", "Bartholomew coaches the Kestrels on Tuesdays.", "Ask Bartholomew, he coaches the Kestrels."),
    ],
)
def test_no_feature_names_a_person_or_place_possessives_included(person, content, quote):
    """The model reads names as ``<name>``: a weight on a development person's name is a model of that person."""
    view = gate_model.view(
        {
            "content": content,
            "person": person,
            "subject": f"person:{person}" if person else "user",
            "attribution": "third_party" if person else "user",
            "evidence": {"quote": quote},
            "features": {"words": [w.strip(".,").lower() for w in quote.split()]},
        }
    )
    names = {"teodora", "oskar", "wenonah", "ullapool", "bartholomew", "kestrels"}
    leaked = [f for f in gate_model.featurize(view) if any(n in f for n in names)]
    assert leaked == []
    assert any(f.startswith("cw:") for f in gate_model.featurize(view))  # the claim's other words are still read



def test_with_no_accept_line_the_best_claims_are_asked_within_the_queues_size():
    """No line keeps 0.95 precision here (a false claim at the top), so nothing is accepted on its own; the queue
    is then the only way to a memory, and it asks the model's best claims as far as 3 per 100 turns allow, even
    if fewer than 60 % of them are true (a gate that drops a whole day is no gate)."""
    rows = [_row(0.99, 0)] + [_row(0.95, 1) for _ in range(2)] + [_row(0.95, 0) for _ in range(3)]
    rows += [_row(0.7, 0) for _ in range(20)]
    accept, review, _, stats = train_gate.choose_thresholds(rows, {"chats": {"chats:0": 200}})
    assert accept == 1.0 and review == 0.95
    assert (stats["chats"]["acc_lab"], stats["chats"]["q_all"], stats["chats"]["q_true"]) == (0, 6, 2)
