"""A memory's text is a rewrite that passes the faithfulness check or the speaker's own words, quoted and
attributed (``distill.steps.text``): never a sentence nobody said.

Every sentence here was written for this file, from domains no labelled development file has (a harbour
fish market, a glassblowing studio, a sauna society, a beekeepers' co-op, a lighthouse, a ferry café); the script
``tests/distill/development_overlap.py`` checks that none is a development utterance."""

from __future__ import annotations

import pytest

from distill import pipeline, trust
from distill.extraction.base import ConversationIn, DayInput, TurnIn
from distill.steps.text import check, is_faithful

OWNER = "Ilse Brandvold"


def texts_of(*turns: tuple[str, str], owner: str = OWNER) -> list[tuple[str, str]]:
    """(memory text, flags) of every candidate the pure pass makes of a two-person talk ("me" is the owner)."""
    day = DayInput(
        owner_name=owner,
        conversations=[
            ConversationIn(
                started_at=None,
                turns=[
                    TurnIn(index=i, speaker_name="user" if who == "me" else who, is_owner=who == "me", text=text)
                    for i, (who, text) in enumerate(turns)
                ],
            )
        ],
    )
    ctx = pipeline.run(pipeline.PassContext(policy=trust.Policy(), day=day, use_judge=False))
    return [(s.candidate.content, " ".join(s.candidate.flags)) for s in ctx.scored]


# --- the check alone -----------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "text,evidence",
    [
        ("Ilse is allergic to beeswax.", ["I'm allergic to beeswax, weirdly."]),
        ("Ilse has kept bees for eleven years.", ["I've kept bees for eleven years."]),
        ("Ilse's brother Anssi blows glass in Nuutajärvi.", ["My brother Anssi blows glass in Nuutajärvi."]),
        ("Ilse and others are moving the hives on Sunday (March 8).", ["We're moving the hives on Sunday."]),
        ("Ilse grew up in Vardø.", ["Where did you grow up?", "Vardø."]),
        # clauses with a subject of their own, one shared through "and", one a comparison may leave out
        ("Ilse heard the lighthouse is closing in May.", ["I heard the lighthouse is closing in May."]),
        ("Ilse mends nets and sells them at the quay.", ["I mend nets and sell them at the quay."]),
        ("Ilse finished the kiln earlier than was planned.", ["I finished the kiln earlier than was planned."]),
        ("Ilse moved to Vardø because it was cheaper.", ["I moved to Vardø because it was cheaper."]),
        (
            'Ilse said: "Honestly, I can\'t stand the smell of smoked herring."',
            ["Um, honestly, I can't stand the smell of smoked herring."],
        ),
    ],
)
def test_a_rewrite_made_of_the_turns_words_that_reads_as_a_sentence_is_faithful(text, evidence):
    assert check(text, evidence, ["Ilse Brandvold", "Ilse", "Anssi"]) == ""
    assert is_faithful(text, evidence, ["Ilse Brandvold", "Anssi"])


@pytest.mark.parametrize(
    "text,evidence,why",
    [
        # a self-introduction with an order in it, rewritten word by word
        ("Call Ilse Tuesday, Ilse is Ilse.", ["Call me Tuesday, I'm Ilse."], "an order"),
        ("Ilse is Ilse.", ["I'm Ilse."], "says nothing"),
        ("Call Ilse any Tuesday at the market.", ["Call me any Tuesday at the market."], "an order"),
        # a numeral that disagrees with its noun, as a learner says it
        ("One years Ilse is selling fish here.", ["One years I am selling fish here."], "numeral"),
        ("Ilse has worked in the smokehouse for six year.", ["I work in the smokehouse six year."], "numeral"),
        # number agreement the rewrite broke or kept from the speaker
        ("Ilse's nephews is both lifeguards.", ["My nephews is both lifeguards."], "plural subject"),
        ("Ilse and others was running the sauna club.", ["We was running the sauna club."], "plural subject"),
        # second-language word order: the verb before its subject
        ("In Tromsø was Ilse a teacher of physics.", ["In Tromsø was I teacher of physics."], ""),
        # a contraction the rewrite could not read, left in the first person
        ("I'ma be at Ilse's auntie's cabin till Sunday.", ["I'ma be at my auntie's cabin till Sunday."], "pronoun"),
        # a clause whose subject the rewrite dropped, kept with its own verb
        (
            "Ilse is still working on the hull are looking up.",
            ["I'm still working on the hull, things are looking up."],
            "has no subject",
        ),
        ("Ilse moved to Vardø because was cheaper.", ["I moved to Vardø because it was cheaper."], "has no subject"),
        ("Don't fret, Ilse is no better at knots.", ["Don't fret, I'm no better at knots."], "has no subject"),
        # a word nobody said
        ("Ilse works as a fishmonger.", ["And your trade, then?", "Fish. Twenty years on the quay."], "'works'"),
        ('Ilse said: "I sell halibut."', ["I sell cod, mostly."], "quote not in the evidence"),
        ("Anssi and Anssi's wife, Anssi and others open a café.", ["Me and my wife, we open café."], ""),
        ("Anssi and Anssi's wife and Anssi's son run the café.", ["Me and my wife and my son run the café."], "named"),
    ],
)
def test_a_rewrite_nobody_said_fails_the_check(text, evidence, why):
    found = check(text, evidence, ["Ilse Brandvold", "Ilse", "Anssi"])
    assert found and why in found
    assert not is_faithful(text, evidence, ["Ilse Brandvold", "Anssi"])


# Names from many places; the small parser reads several of them as a noun before a verb ("Alice reviews" as a
# compound), which made the same rewrite faithful for one owner and not for another.
NAMES = ["alice", "Alice", "Dara", "Oluwaseun", "Mei", "Siobhan", "Tomasz", "Ngaio", "Kwame", "Ayelet", "Joon"]
PLAIN = [
    ("{} repairs ferry engines every winter.", "I repair ferry engines every winter."),
    ("{} reviews grant applications on Fridays.", "I review grant applications on Fridays."),
    ("{} bakes with spelt from the harbour mill.", "I bake with spelt from the harbour mill."),
    ("{}'s sister coaches the rowing club.", "My sister coaches the rowing club."),
    ("{} parks at the ferry terminal.", "I park at the ferry terminal."),
]
BROKEN = [
    ("{} repair ferry engines every winter.", "I repair ferry engines every winter."),
    ("One winters ago {} repaired the ferry.", "One winter ago I repaired the ferry."),
    ("{} grant applications.", "I review grant applications."),
    ("{} park at the ferry terminal.", "I park at the ferry terminal."),
]


@pytest.mark.parametrize("name", NAMES)
def test_the_check_gives_every_owner_name_the_same_answer(name):
    for text, evidence in PLAIN:
        assert check(text.format(name), [evidence], [name]) == "", text.format(name)
    for text, evidence in BROKEN:
        assert check(text.format(name), [evidence], [name]), text.format(name)


def test_an_empty_text_is_not_faithful():
    assert check("", ["I keep bees."], ["Ilse"]) == "empty"


# --- every path that makes memory text ------------------------------------------------------------------------
def test_a_self_introduction_with_an_order_is_quoted_not_rewritten(db):
    got = texts_of(("me", "Morning! Fresh mackerel today?"), ("Tuesday Varga", "Call me Tuesday, I'm Tuesday Varga."))
    assert got, "the turn makes at least one candidate"
    for text, _ in got:
        assert "Call Tuesday" not in text and "is Tuesday Varga." not in text
        assert is_faithful(text, ["Morning! Fresh mackerel today?", "Call me Tuesday, I'm Tuesday Varga."],
                           [OWNER, "Tuesday Varga"])  # fmt: skip


@pytest.mark.parametrize(
    "turn",
    [
        "One years I am in this town, I sell the smoked fish.",  # a learner's numeral
        "Since five year I am working at the glass studio.",  # dropped article, singular after a numeral
        "In Gdynia was I captain of small ferry.",  # verb before subject, dropped article
        "My sons is both at the sauna society every Friday.",  # number disagreement kept from the speaker
        "Och, I'm his biggest fan, down the harbour every Friday wi' a wee flag!",  # dialect and an exclamation
        "Oh I just love this lighthouse!",  # an exclamation
    ],
)
def test_every_memory_text_of_other_peoples_english_is_faithful(db, turn):
    evidence = ["So how long have you been here?", turn]
    got = texts_of(("me", evidence[0]), ("Wiesław Kowal", turn))
    for text, flags in got:
        assert is_faithful(text, evidence, [OWNER, "Wiesław Kowal"]), (text, flags)


# Sentences whose special rewrite rule was removed (too few instances in the labelled days, see
# docs/trust-gate.md): the plain rewrite may come out wrong, and then the check quotes the speaker instead.
REMOVED_RULES_SENTENCES = [
    "I wanna rebuild the dinghy before summer.",
    "I'm always honest with myself about money.",
    "Been restoring a rowing scull since March.",
    "Big news - I adopted a greyhound.",
    "Which reminds me, I'm selling the kayak next month.",
    "By the way, I've started learning the accordion.",
    "The physio helped me stretch and strengthen my ankle.",
    "Did you know I grew up on a trawler?",
    "I move to Galway next month, which is exciting.",
    "Every Tuesday, and I coach the under-tens on Saturdays.",
    "I'm happy and scared to start the apprenticeship.",
    "I'm a mix of excited and scared to start the apprenticeship.",
    "My allotment has been a roller coaster but rewarding.",
    "My partner and I are moving to Galway in May.",
    "I am still saving for the sailboat and prices are going up.",
    "I have three of my own.",
    "Bless you, Halvard - owe you one for fixing the gate!",
]


@pytest.mark.parametrize("turn", REMOVED_RULES_SENTENCES)
def test_what_a_removed_rule_rewrote_is_still_a_faithful_memory_text(db, turn):
    evidence = ["Anything new with you?", turn]
    got = texts_of(("Birgitta Holm", evidence[0]), ("me", turn))
    assert got, "a memory candidate at least"
    for text, flags in got:
        assert is_faithful(text, evidence, [OWNER, "Birgitta Holm"]), (text, flags)


def test_a_learners_numeral_becomes_their_own_words_quoted(db):
    turn = "One years I am in this town."
    got = texts_of(("me", "Are you new at the market?"), ("Wiesław Kowal", turn))
    quoted = [t for t, flags in got if "quoted:" in flags]
    assert f'Wiesław Kowal said: "{turn}"' in quoted


def test_an_answer_without_a_verb_is_quoted_with_its_question(db):
    got = texts_of(
        ("Birgitta Holm", "And what keeps you busy up there?"), ("me", "Bees. Forty colonies up the valley.")
    )
    texts = [t for t, _ in got]
    assert (
        'Birgitta Holm asked: "And what keeps you busy up there?" Ilse said: "Bees. Forty colonies up the valley."'
        in texts
    )


def test_a_plain_rewrite_is_kept(db):
    got = texts_of(("me", "I restore old lighthouse lenses for the coastal trust."), ("Birgitta Holm", "Nice."))
    assert ("Ilse restores old lighthouse lenses for the coastal trust.", "") in [(t, "") for t, _ in got]


def test_a_providers_own_memory_that_is_no_sentence_is_quoted_as_its_note(user):
    from distill import policies, services
    from distill.conversation import NativeMemory
    from ledger.models import Fact

    policies.update_policy(owner=user, source_key="wearable:pendant", native_mode="review")  # every one is written
    services.import_native(
        owner=user,
        source_key="wearable:pendant",
        memories=[NativeMemory(text="Prefers aisle seats on the night ferry"), NativeMemory(text="Ilse keeps bees.")],
    )
    texts = set(Fact.objects.owned_by(user).values_list("content", flat=True))
    assert texts == {'pendant noted: "Prefers aisle seats on the night ferry"', "Ilse keeps bees."}


def test_an_agents_remember_that_its_quote_does_not_bear_out_is_kept_as_the_quote(user):
    from distill import services

    result = services.remember(
        owner=user, text="The user is a professional glassblower.", quote="I blow glass on Saturdays, just a hobby."
    )
    assert result.fact is not None
    assert result.fact.content == 'mcp noted: "I blow glass on Saturdays, just a hobby."'
    plain = services.remember(owner=user, text="Alice blows glass on Saturdays.", quote="I blow glass on Saturdays.")
    assert plain.fact.content == "Alice blows glass on Saturdays."
