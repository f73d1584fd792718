"""Recall mechanisms of the deterministic extractor, checked on sentences written for these tests (other names,
topics and phrasing than the development days): speaker self-introductions and greetings name unlabeled speakers,
plain plans pinned to a calendar date are confident, a condition earlier in the sentence and an uncertain wearer
keep claims out of auto-accept. Pure: no database."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from distill.extraction.base import ConversationIn, DayInput, UtteranceIn
from distill.extraction.deterministic import DeterministicExtractor, clauses_with_context
from distill.trust import Policy, decide, score

T0 = datetime(2026, 4, 7, 16, 0, tzinfo=UTC)


def extract(*turns, wearer="Ines Albright", wearer_confidence=1.0):
    utts = [
        UtteranceIn(index=i, speaker_name=s, is_wearer=w, text=t, started_at=T0 + timedelta(seconds=9 * i))
        for i, (s, w, t) in enumerate(turns)
    ]
    conv = ConversationIn(started_at=T0, utterances=utts, wearer_confidence=wearer_confidence)
    return DeterministicExtractor().extract(DayInput(wearer_name=wearer, conversations=[conv])).candidates


def decision(cand) -> str:
    return decide(score(cand, source_trust=Policy().source_trust), Policy()).decision


def by_text(cands, needle):
    found = [c for c in cands if needle.lower() in c.content.lower()]
    assert found, [c.content for c in cands]
    return found[0]


def test_an_unlabeled_speaker_who_names_themselves_gets_their_statements():
    cands = extract(
        ("SPEAKER_01", False, "Hello, it's Farid Haddad from the co-op board."),
        ("SPEAKER_00", True, "Oh hi, thanks for calling back."),
        ("SPEAKER_01", False, "Sure. I'm the treasurer of the co-op, so the fees go through me."),
    )
    cand = by_text(cands, "treasurer")
    assert cand.attribution == "third_party" and cand.person == "Farid Haddad"
    assert cand.content.startswith("Farid Haddad is the treasurer")


def test_a_please_call_me_introduction_names_the_speaker():
    cands = extract(
        ("2", False, "Please, call me Greta."),
        ("0", True, "Okay, Greta."),
        ("2", False, "I work as a pharmacist at the Riverside clinic."),
    )
    assert by_text(cands, "pharmacist").person == "Greta"


def test_the_wearer_greeting_someone_with_a_title_names_the_other_speaker():
    cands = extract(
        ("Unknown", False, "Right, so about the boiler."),
        ("user", True, "Hi Mrs. Okonkwo, yes, the boiler."),
        ("Unknown", False, "I live in the basement unit, I'll send the plumber by March ninth."),
    )
    cand = by_text(cands, "plumber")
    assert cand.person == "Okonkwo"


def test_a_weekday_or_a_name_after_its_is_not_an_introduction():
    cands = extract(
        ("SPEAKER_01", False, "It's Tuesday, so the market is open."),
        ("SPEAKER_01", False, "I'm moving to Tucson in the spring."),
    )
    assert all(c.person != "Tuesday" for c in cands)


def test_a_plain_first_person_plan_with_a_calendar_date_is_accepted():
    for text in (
        "I'll fly to Denver on the fourteenth for the conference.",
        "I'm starting the pottery course September ninth.",
        "I'm driving up to Duluth on August 3rd.",
    ):
        cand = by_text(extract(("user", True, text)), "")
        assert "specific date" in cand.flags, text
        assert decision(cand) == "accepted", (text, cand.extraction_confidence)


def test_relative_times_and_vague_plans_stay_in_review():
    for text in ("I'll call the bank tomorrow.", "I'm going to the gym next Friday."):
        cands = extract(("user", True, text))
        assert all(decision(c) != "accepted" for c in cands), text


def test_dated_plans_under_doubt_are_not_accepted():
    cases = [
        "If the visa comes through, I'm moving to Oslo on the twelfth.",  # conditional
        "Maybe I'll fly to Lima on the fourth.",  # hedged
        "I'd fly to Quito on May 20th if I had the money.",  # hypothetical
    ]
    for text in cases:
        cands = extract(("user", True, text))
        assert all(decision(c) != "accepted" for c in cands), (text, [(c.content, c.flags) for c in cands])


def test_a_dated_plan_cancelled_later_the_same_day_is_not_accepted():
    cands = extract(
        ("user", True, "I'm flying to Boise on the nineteenth."),
        ("Pat", False, "Wait, Boise got cancelled, the client moved it."),
    )
    cand = by_text(cands, "Boise")
    assert decision(cand) != "accepted"


def test_a_condition_earlier_in_the_sentence_marks_the_later_clause_conditional():
    parts = clauses_with_context("So if the loan clears, I'm buying the bakery in June.")
    assert parts[-1][0].startswith("I'm buying") and parts[-1][2] is True
    assert clauses_with_context("I'm buying the bakery in June.")[0][2] is False


def test_when_the_wearer_was_only_guessed_first_person_claims_are_not_auto_accepted():
    text = "I'm a veterinarian at the county shelter."
    sure = by_text(extract(("0", True, text)), "veterinarian")
    guessed = by_text(extract(("0", True, text), wearer_confidence=0.3), "veterinarian")
    assert decision(sure) == "accepted"
    assert "wearer uncertain" in guessed.flags and decision(guessed) != "accepted"


def test_a_date_said_as_its_own_fragment_completes_the_plan_before_it():
    cands = extract(("user", True, "I'm driving to Tulsa. The ninth to the twelfth."))
    cand = by_text(cands, "Tulsa")
    assert cand.content == "Ines is driving to Tulsa, the ninth to the twelfth."
    assert "specific date" in cand.flags


def test_a_date_in_the_same_speakers_next_turn_completes_the_plan():
    cands = extract(
        ("user", True, "Okay, I'm flying out to see Grandpa."),
        ("user", True, "October fourth. Back on the eighth."),
    )
    cand = by_text(cands, "flying")
    assert "October fourth" in cand.content
    assert cand.evidence.first_index == 0 and cand.evidence.last_index == 1


def test_a_date_from_another_speaker_is_not_glued_to_the_wearers_clause():
    cands = extract(("user", True, "I'm flying out to see Grandpa."), ("Bo", False, "October fourth."))
    assert all("October" not in c.content for c in cands)


def test_ongoing_habits_are_candidates_for_review():
    for text, needle in (
        ("I've been cycling to the office every day since March.", "cycling"),
        ("I just started doing pilates on Thursdays.", "pilates"),
        ("I've recently been learning Portuguese with an app.", "Portuguese"),
    ):
        cand = by_text(extract(("user", True, text)), needle)
        assert cand.attribution == "user" and decision(cand) == "pending_review", (text, cand.flags)


def test_waiting_or_thinking_is_not_a_habit():
    for text in ("I've been waiting for the bus forever.", "I've been thinking about the garden a lot."):
        assert all(decision(c) != "accepted" for c in extract(("user", True, text))), text


def test_a_real_condition_queues_the_plan_instead_of_dropping_it():
    cand = by_text(extract(("user", True, "So if the bank says yes, I'm moving to Fresno on the sixth.")), "Fresno")
    assert "conditional" in cand.flags and decision(cand) == "pending_review"


def test_the_wearer_naming_their_relation_to_the_addressee_files_it_under_both():
    cands = extract(("Lior", False, "Hey!"), ("user", True, "Lior, you're my little brother, of course I'll come."))
    mine = [c for c in cands if c.attribution == "user" and "brother" in c.content]
    theirs = [c for c in cands if c.attribution == "third_party" and "brother" in c.content]
    assert mine and mine[0].content == "Ines's little brother is Lior."
    assert theirs and theirs[0].person == "Lior" and theirs[0].content == "Lior is Ines's little brother."


def test_a_place_called_out_like_a_name_does_not_name_a_speaker():
    cands = extract(
        ("user", True, "Then we should finally book Porto, it's time."),
        ("1", False, "Porto, yes! I'm a teacher at the conservatory, so summers are free."),
        ("user", True, "Okay, let's lock in Porto then. Porto!"),
        ("1", False, "I'm a teacher at the conservatory."),
    )
    assert all(c.person != "Porto" for c in cands)


def test_dated_jokes_quotes_and_other_speakers_plans_are_not_accepted_for_the_wearer():
    joke = extract(
        ("user", True, "Oh sure, I'm totally running the Boston Marathon on April 20th."), ("Kai", False, "Ha!")
    )
    quote = extract(("user", True, 'Like the captain says in the show, "I will sail on the ninth."'))
    other = extract(("Kai", False, "I'm flying to Reno on the fifth."), ("user", True, "Nice."))
    assert all(decision(c) != "accepted" for c in joke + quote)
    assert all(c.attribution != "user" for c in other)


def test_a_dated_plan_another_device_heard_differently_is_not_auto_accepted():
    cand = by_text(extract(("user", True, "I'm flying to Reno on the fifth.")), "Reno")
    assert decision(cand) == "accepted"
    cand.capture_confidence = 0.35  # what the pipeline sets when a sibling device heard other words
    assert decision(cand) == "pending_review"


def test_a_short_answer_to_a_question_about_the_answerer_is_a_statement_about_them():
    work = extract(("Noor", False, "So what do you do, Emil?"), ("Emil", False, "ICU nurse, at Mercy General."))
    assert by_text(work, "nurse").content == "Emil works as ICU nurse, at Mercy General."
    assert by_text(work, "nurse").person == "Emil"
    dob = extract(
        ("SPEAKER_02", False, "Full name? Date of birth?"), ("SPEAKER_00", True, "Um, July ninth, eighty-eight.")
    )
    cand = by_text(dob, "date of birth")
    assert cand.attribution == "user" and cand.content == "Ines's date of birth is July ninth, eighty-eight."
    assert decision(cand) == "pending_review"


def test_evasive_answers_and_non_questions_give_nothing():
    assert not [
        c
        for c in extract(("Noor", False, "What do you do?"), ("user", True, "I don't know, honestly."))
        if "works" in c.content
    ]
    assert not [
        c for c in extract(("Noor", False, "Where do you live?"), ("user", True, "Why?")) if "lives" in c.content
    ]
    assert not [
        c for c in extract(("Noor", False, "I wonder what you do."), ("user", True, "Lawyer.")) if "works" in c.content
    ]


def test_a_named_speakers_durable_statement_about_themselves_is_accepted():
    cands = extract(
        ("Rafael", False, "I'm allergic to shellfish, so no paella for me."),
        ("user", True, "Noted."),
        ("Rafael", False, "And I'm a paramedic at Station Nine."),
    )
    assert decision(by_text(cands, "shellfish")) == "accepted"
    assert by_text(cands, "shellfish").person == "Rafael"
    assert decision(by_text(cands, "paramedic")) == "accepted"


def test_a_self_introduced_speaker_counts_as_named_but_a_guessed_name_does_not():
    intro = extract(("SPEAKER_02", False, "Hi, it's Wendell."), ("SPEAKER_02", False, "I'm vegan, by the way."))
    assert decision(by_text(intro, "vegan")) == "accepted"
    guessed = extract(("user", True, "Morning, Wendell!"), ("SPEAKER_02", False, "I'm vegan, by the way."))
    cand = by_text(guessed, "vegan")
    assert cand.person == "Wendell" and decision(cand) == "pending_review"


def test_what_another_speaker_is_doing_right_now_is_not_accepted():
    cands = extract(
        ("Rafael", False, "I'm in the car, hold on."),
        ("Rafael", False, "I'm working on the grant report for the clinic tonight."),
        ("user", True, "Okay."),
    )
    assert all(decision(c) != "accepted" for c in cands), [(c.content, c.kind) for c in cands]


def test_introducing_a_relation_is_a_fact_about_both_people():
    cands = extract(("Kim", False, "Oh! This is Bruno. My husband."), ("user", True, "Meet my roommate, Yusuf."))
    contents = {(c.attribution, c.person, c.content) for c in cands}
    assert ("third_party", "Kim", "Kim's husband is Bruno.") in contents
    assert ("third_party", "Bruno", "Bruno is Kim's husband.") in contents
    assert ("user", "", "Ines's roommate is Yusuf.") in contents


def test_an_introduction_by_an_unnamed_speaker_or_of_the_wearer_gives_nothing():
    assert not extract(("SPEAKER_03", False, "This is Bruno. My husband."))
    assert not [c for c in extract(("Kim", False, "This is Ines, my cousin.")) if "cousin" in c.content]
