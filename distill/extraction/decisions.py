"""Decisions made together, and plans undone later the same day.

One speaker proposes ("Let's move the launch to March"), the other agrees in the next
turn ("Deal."). When the owner is one of the two, that is a decision of the owner's, worth keeping, but the
talk only shows a proposal and a short reply: review, never accepted on this path.

A proposal about the moment ("let's grab a coffee", "let's see", "let's do it") is no decision: a light verb, a
pronoun for an object or a same-day time leaves it out, and so does a reply that is not a plain yes.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from distill.extraction.base import Candidate, ConversationIn, TurnIn
from distill.extraction.screens import not_a_claim, readings
from distill.extraction.text import _LEAD, _SENTENCE, clean

AGREED = "a proposal the other speaker agreed to"
REVIEW_CONFIDENCE = 0.7

_LETS = r"(?:let['’]s|let us)\s+(?:just\b\s*)?,?\s*"
_PROPOSAL = re.compile(rf"^{_LETS}(?:{_LETS})?(?P<rest>.+)$", re.IGNORECASE)
_AGREEMENT = re.compile(
    r"^(?:yes|yeah|yep|yup|sure|okay|ok|agreed|deal|done|absolutely|definitely|totally|fine|perfect|great|"
    r"sounds good|sounds great|good idea|let's do it|works for me|i'm in)\b(?!\s*,?\s*(?:but|except|although))",
    re.IGNORECASE,
)
# Verbs that make a proposal about the next few minutes, not a decision ("let's go", "let's grab lunch").
_LIGHT_VERBS = set(
    """be go get grab have do see try talk chat check look keep start stop wait take make think hear eat drink
    sit stay come head call text meet walk catch hang play focus say put find ask leave turn pick hope""".split()
)
_PERSONAL = re.compile(r"\b(?:i|me|my|mine|you|your|yours|he|she|him|her|it|them)\b", re.IGNORECASE)


def agreed_proposal(conv: ConversationIn, pos: int, utt: TurnIn, owner: str, names: dict) -> Candidate | None:
    """ "Let's cancel the Lisbon trip." / "Okay." → "<owner> and <other> decided to cancel the Lisbon trip."
    (for review), when the owner proposed or agreed and the other speaker is in the very next turn."""
    reply = conv.turns[pos + 1] if pos + 1 < len(conv.turns) else None
    if reply is None or reply.is_owner == utt.is_owner or not _AGREEMENT.match(clean(reply.text)):
        return None
    other = reply if utt.is_owner else utt  # exactly one of the two turns is the owner's
    action = _proposed_action(clean(utt.text))
    if not action:
        return None
    partner = names.get(other.speaker_name, "") or "others"
    content = f"{owner} and {partner} decided to {action}."
    words = {w for w in re.findall(r"[a-z0-9]+", action.lower()) if len(w) > 2}
    return Candidate(
        subject="user",
        predicate="decision:agreed",
        args=sorted(words),
        content=content,
        kind="decision",
        importance="normal",
        extraction_confidence=REVIEW_CONFIDENCE,
        capture_confidence=1.0,
        attribution="user",
        person="",
        flags=["agreed in the next turn"],
        ceiling="pending_review",
        ceiling_reason=AGREED,
    )


def _proposed_action(text: str) -> str:
    """The verb phrase of the turn's last "let's …" sentence, or "" when it is no decision."""
    for sentence in reversed(_SENTENCE.split(text)):
        sentence = _LEAD.sub("", sentence.strip()).strip()
        if sentence.endswith("?"):
            continue
        m = _PROPOSAL.match(sentence.rstrip(" .!"))
        if not m:
            continue
        action = re.sub(r"^(?:just|all|both)\s+", "", m.group("rest").strip(" ,")).replace(" our ", " their ")
        words = action.split()
        if len(words) < 2 or words[0].lower() in _LIGHT_VERBS or "VERB" not in readings(words[0]):
            return ""
        if _PERSONAL.search(action) or re.search(r"[,;]", action):
            return ""  # a pronoun nobody resolved, or a list of afterthoughts: too loose to keep
        if not_a_claim(f"We will {action}.") in ("no claim", "is_question", "hypothetical", "momentary"):
            return ""
        return action
    return ""


# --- plans undone later the same day ---------------------------------------------------------------------------
_CANCEL = re.compile(
    r"\b(cancel\w*|call(?:ed)? (?:it )?off|can't make it|can't do|not happening|never ?mind|scratch that|"
    r"push(?:ed)? it|postpon\w*|reschedul\w*|rain check|is off|'s off|instead|moved (?:it|the \w+) to|"
    r"not anymore|no longer|change of plans?|let's push)\b",
    re.IGNORECASE,
)


def later_texts(conversations: list[ConversationIn]) -> list[tuple[int, int, str]]:
    """(conversation, position, cleaned text) of every turn of the day, in order."""
    return [(ci, pos, clean(utt.text)) for ci, conv in enumerate(conversations) for pos, utt in enumerate(conv.turns)]


def cancels(text: str) -> bool:
    """Does this turn cancel or move something ("we called it off", "let's push it")?"""
    return bool(_CANCEL.search(text))


def cancelled_later(content: str, later: list[str], tokens: Callable[[str], set[str]]) -> bool:
    """A plan is doubtful when a later turn the same day cancels or moves something sharing its terms."""
    if _CANCEL.search(content):
        return False  # a plan to cancel something is confirmed, not undone, by talk of cancelling it
    name = content.split()[0].lower().strip("'s")
    key_terms = {t for t in tokens(content) if len(t) > 3 and t != name}
    return any(_CANCEL.search(text) and key_terms & tokens(text) for text in later)
