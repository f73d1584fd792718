"""Outcomes with polarity, read from one display line: who won or lost, whether a run passed, an order was
delivered, cancelled or substituted, a payment went through or was declined. Pure, no database.

The vocabulary is a small general lexicon of English outcome words (what any result screen, status line or
receipt says), not phrases from any session. Three general rules keep it honest:

- **Controls are not outcomes.** A short line starting with an imperative UI verb ("Offer draw", "Cancel
  order", "Pay now", "Retry") is a button label; a question ("Resign?") asks, it does not report.
- **Negation.** "0 failed", "no errors" carry no outcome; "not delivered" is a failure of the delivery.
- **Who it applies to.** A contest line names its subject: "You lost", "Black resigned", "Kestrel wins". The
  subject is the user when it is "you"/"your" or one of the user's own names or sides (``you`` tokens, e.g. the
  colour the screen said the user plays); a concession ("resigned", "timed out") is a loss for its subject and
  a win for the other side. A banner with no subject ("VICTORY", "Draw") speaks to the viewer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

POSITIVE, NEGATIVE, NEUTRAL, MIXED = "positive", "negative", "neutral", "mixed"

WIN, LOSS, DRAW = "win", "loss", "draw"
SUCCESS, FAILURE, RESOLVED = "success", "failure", "resolved"
DELIVERED, CANCELLED, SUBSTITUTED, SHIPPED = "delivered", "cancelled", "substituted", "shipped"
PAID, DECLINED, CONFIRMED, COMPLETED, ACCEPTED = "paid", "declined", "confirmed", "completed", "accepted"
SENT = "sent"  # a message or a form sent: read as "confirmed" by the families that have it
PROGRESS = "progress"  # a step done inside an activity ("CV.pdf uploaded", "Added to cart", "Run saved")
DECIDED, NO_DECISION = "decided", "no_decision"
CONTEST = frozenset({WIN, LOSS, DRAW})
_CONTEST_KINDS = frozenset({"concede", WIN, LOSS, DRAW})
POLARITY = {
    WIN: POSITIVE,
    SUCCESS: POSITIVE,
    RESOLVED: POSITIVE,
    DELIVERED: POSITIVE,
    PAID: POSITIVE,
    CONFIRMED: POSITIVE,
    COMPLETED: POSITIVE,
    ACCEPTED: POSITIVE,
    DECIDED: POSITIVE,
    LOSS: NEGATIVE,
    FAILURE: NEGATIVE,
    CANCELLED: NEGATIVE,
    DECLINED: NEGATIVE,
    DRAW: NEUTRAL,
    SHIPPED: NEUTRAL,
    NO_DECISION: NEUTRAL,
    SUBSTITUTED: MIXED,
}
# Outcomes that settle an activity; a later span may still revise them when it names the same thing.
UNSETTLED = frozenset({FAILURE, CONFIRMED, SHIPPED, SUBSTITUTED})

_LEXICON: dict[str, frozenset[str]] = {
    "concede": frozenset("resigned resigns forfeited forfeits conceded concedes abandoned".split()),
    WIN: frozenset("won win wins winner victory victorious".split()),
    LOSS: frozenset("lost lose loses defeat defeated".split()),
    DRAW: frozenset("draw drawn stalemate tie tied".split()),
    SUBSTITUTED: frozenset("substituted substitution substitutions replaced replacement".split()),
    CANCELLED: frozenset("cancelled canceled refunded refund voided".split()),
    DECLINED: frozenset("declined rejected bounced unsuccessful".split()),
    DELIVERED: frozenset("delivered arrived".split()),
    FAILURE: frozenset(
        "failed failure failures failing fails fail error errors errored err fatal exception traceback crashed crash "
        "aborted broken fault panic denied refused invalid unable cannot couldn't halted stopped".split()
    ),
    ACCEPTED: frozenset("accepted approved granted admitted shortlisted".split()),
    PAID: frozenset({"paid"}),
    SHIPPED: frozenset("shipped dispatched".split()),
    SENT: frozenset({"sent"}),
    CONFIRMED: frozenset(
        "confirmed booked reserved scheduled submitted registered ordered placed enrolled received issued".split()
    ),
    SUCCESS: frozenset(
        "passed passing succeeded success successful successfully completed complete done finished fixed "
        "resolved installed deployed merged published restored recovered ended congratulations".split()
    ),
    PROGRESS: frozenset("uploaded saved added attached updated selected verified".split()),
}
_PHRASES = (  # multi-word outcomes, matched before single words
    (re.compile(r"\b(ran out of time|out of time)\b"), "concede"),
    (re.compile(r"\b(did not|didn't|not) pass\b"), FAILURE),
    (re.compile(r"\bchecked in\b"), CONFIRMED),
    (re.compile(r"^(read|seen)( at)? \d{1,2} \d{2}\b"), DELIVERED),  # a message's receipt: "Read 10:42"
    (re.compile(r"\bout for delivery\b|\bon (its|the) way\b|\bin transit\b"), SHIPPED),
    (re.compile(r"\binsufficient funds\b"), DECLINED),
    (re.compile(r"\bdelivery (is |was |has been )?(complete|completed|successful|done)\b"), DELIVERED),
    (re.compile(r"\b(not|\w*n't|no longer) (be )?(moving forward|proceeding|progressing)\b"), DECLINED),
    (re.compile(r"\b(not|n't) (been )?(selected|chosen|shortlisted)\b"), DECLINED),
    (re.compile(r"\binvite you (to|for) an? (interview|call)\b|\boffer you (the|a|an) "), ACCEPTED),
    (
        re.compile(r"\bthanks? (you )?for (your )?(order|purchase|booking|payment|applying|application|shopping)\b"),
        CONFIRMED,
    ),
    (re.compile(r"\b(you're|you are) all set\b"), CONFIRMED),
    (re.compile(r"\bwent through\b|\b(is|now) live\b|\brolled out\b"), SUCCESS),
    (re.compile(r"\btimed out\b"), FAILURE),
    (re.compile(r"\b(left|ended) the (meeting|call)\b|\b(meeting|call) ended\b"), COMPLETED),
)
ORDER = (
    "concede",
    WIN,
    LOSS,
    DRAW,
    CANCELLED,
    DECLINED,
    DELIVERED,
    SUBSTITUTED,
    FAILURE,
    ACCEPTED,
    PAID,
    SHIPPED,
    COMPLETED,
    CONFIRMED,
    SENT,
    SUCCESS,
    PROGRESS,
)  # the most specific first
ALL_WORDS = frozenset().union(*_LEXICON.values())
# Nouns among the outcome words: followed by another noun they only modify it ("error log", "success rate",
# "replacement part", "refund policy"): a label or a thing, not a report.
_NOUNS = frozenset(
    "victory defeat win loss draw tie success failure error errors exception crash fault panic replacement "
    "substitution substitutions refund confirmation".split()
)
# Nouns naming a kind of remedy, not its report: alone on a line they are a heading, a tab or an event's label
# ("Substitution" on a match's ticker, "Refund" as a tab, "Replacement" over a form); a report says what was
# done ("1 item substituted", "Substitution: soy for oat", "Refund issued").
_LABEL_NOUNS = frozenset("substitution substitutions replacement refund".split())
_AUXILIARIES = frozenset(
    "be been being is was were are am has have had yet get got still fully properly successfully to".split()
)
_NEGATORS = frozenset({"no", "not", "never", "without", "0", "zero", "nothing", "none", "n't", "cannot", "unable"})
# Imperative verbs of UI controls (buttons, menu items): general interface vocabulary.
CONTROL_VERBS = frozenset(
    "offer request accept decline claim propose abort resign pay place confirm submit cancel retry rerun "
    "re-run join leave view track download start continue play buy add remove edit undo report share "
    "reschedule complete change select choose book order checkout check save send approve reject".split()
)
_SENTENCE_END = re.compile(r"(?<=\w[.!?])\s+(?=[A-Z])")  # "Ticket voided. A new one is on its way"
MAX_CONTEST_WORDS = 8  # a result banner is short; "we lost the file" inside a paragraph is not a result
MAX_WORDS = 12  # a status line is short; a sentence of prose that mentions an outcome reports nobody's result
# "q4v8d1" and "e2e" are one token each, and so is a dotted number: the zero of "6.12.0" counts nothing.
_TOKEN = re.compile(r"[a-z0-9]*[a-z][a-z0-9]*(?:'[a-z]+)?|\d+(?:\.\d+)+|\d+")
# A place in a race or a ranking: "You finished 3rd", "1st place!", "Final position: P2".
_ORDINAL = re.compile(r"\b(?:(\d{1,2})(?:st|nd|rd|th)|p(\d{1,2}))\b")
_PLACE_WORDS = frozenset("place finished finish came position placed race rank ranked".split())
# Test runners report a passing package as "ok <name> <duration>" (go test, TAP).
_RUNNER_OK = re.compile(r"^ok\s+\S+.*\b\d+(\.\d+)?s\b|^ok \d+ ")


@dataclass(frozen=True)
class Outcome:
    word: str  # win | loss | draw | success | failure | delivered | cancelled | substituted | paid | ...
    subject: str  # "you" | "other" | "" (the system reports its own state)
    line: str

    @property
    def polarity(self) -> str:
        return POLARITY.get(self.word, NEUTRAL)

    @property
    def contest(self) -> bool:
        return self.word in CONTEST


def tokens(line: str) -> list[str]:
    return _TOKEN.findall(line.lower().replace("’", "'").replace("-", " "))


def is_control(toks: list[str], line: str) -> bool:
    """A button or menu label ("Offer draw", "Cancel order", "Pay now"), or a question. Reporting lines use
    participles ("Order placed", "Payment declined"); controls use base forms."""
    if line.rstrip().endswith("?"):
        return True
    if not toks or toks[0] not in CONTROL_VERBS or len(toks) > 4:
        return False
    return not any(t.endswith("ed") or t in _PARTICIPLES or t in _STATES for t in toks[1:])


_PARTICIPLES = frozenset("sent paid won lost done drawn shown gone".split())
# Adjectives that report a state after the noun they describe: a verb's noun form ("Download", "Check-in",
# "Order", "Checkout") followed by one is a status line ("Download complete", "Check-in successful"), not a
# button; a button puts the verb first and its object after ("Complete purchase").
_STATES = frozenset("complete successful unsuccessful".split())


def _negated(toks: list[str], i: int, line: str = "") -> bool:
    """Negated before ("0 failed", "not delivered", "could not be completed") or counted as none after
    ("Failures: 0", "errors none")."""
    for t in reversed(toks[max(0, i - 3) : i]):
        if t in _NEGATORS or t.endswith("n't"):
            return True
        if t not in _AUXILIARIES:
            break  # another word in between: "not authorised: declined" does not negate "declined"
    return bool(re.search(rf"\b{re.escape(toks[i])}\s*[:=]\s*(0|none|zero)\b", line.lower()))


def _kinds_at(toks: list[str]) -> list[tuple[str, int]]:
    found: dict[str, int] = {}
    for i, tok in enumerate(toks):
        for kind, vocab in _LEXICON.items():
            if tok in vocab and kind not in found:
                found[kind] = i
    return [(kind, found[kind]) for kind in ORDER if kind in found]


def _subject(toks: list[str], i: int, you: frozenset[str]) -> str:
    before = toks[:i]
    if not before:
        return "you"  # a bare banner speaks to the viewer
    if any(t in you or t in ("you", "your", "you're", "we") for t in before):
        return "you"
    return "other"


def _placed(toks: list[str], line: str) -> Outcome | None:
    """A finishing place: first is a win, any other place a loss; only where it is the owner's (a line that
    names someone else's place reports on them)."""
    if not set(toks) & _PLACE_WORDS and not line.rstrip().endswith("!"):
        return None
    m = _ORDINAL.search(line.lower())
    if m is None:
        return None
    before = tokens(line[: m.start()])
    if any(t not in _PLACE_WORDS | _OWN_PLACE for t in before):
        return None
    return Outcome(WIN if int(m.group(1) or m.group(2)) == 1 else LOSS, "you", line)


_OWN_PLACE = frozenset("you your race final complete total result".split())


def read_outcome(line: str, *, you: frozenset[str] = frozenset()) -> Outcome | None:
    """The outcome a display line reports, or None (no outcome, a control label, negated, a paragraph)."""
    toks = tokens(line)
    if not toks or len(toks) > MAX_WORDS or is_control(toks, line):
        return None
    if len(toks) == 1 and toks[0] in _LABEL_NOUNS:
        return None
    if _RUNNER_OK.search(line.lower().strip()):
        return Outcome(SUCCESS, "", line)
    for sentence in _SENTENCE_END.split(line)[:-1] if _SENTENCE_END.search(line) else ():
        # The first sentence that reports an outcome is the line's: "Order 4410 voided. Your refund is on its
        # way" reports a cancellation, whatever the next sentence says is on its way.
        got = read_outcome(sentence, you=you)
        if got is not None:
            return Outcome(got.word, got.subject, line)
    placed = _placed(toks, line)
    if placed is not None:
        return placed
    if _a_name(line):
        return None
    low = " ".join(toks)
    for pattern, kind in _PHRASES:
        m = pattern.search(low)
        if m:
            i = len(low[: m.start()].split())
            if kind == ACCEPTED and _negated(toks, i, line):
                return Outcome(DECLINED, "", line)  # "unable to offer you a place"
            return _finish(kind, toks, i, line, you, phrase=True)
    kinds = _kinds_at(toks)
    fault_at = next((i for kind, i in kinds if kind == FAILURE and not _negated(toks, i, line)), len(toks))
    for kind, i in kinds:
        if _noun_modifier(toks, i, line):
            continue
        if kind in _CONTEST_KINDS and fault_at < i:
            continue  # "Error 4: signal lost", "Stopped: link lost": the fault heads the line, the rest is its cause
        if not _negated(toks, i, line):
            return _finish(kind, toks, i, line, you)
        # "not delivered", "payment not received": a failure of what was expected; "not approved": declined.
        if kind == ACCEPTED:
            return Outcome(DECLINED, "", line)
        if kind in (DELIVERED, PAID, SUCCESS, CONFIRMED, SHIPPED, SENT, PROGRESS):
            return Outcome(FAILURE, "", line)
        if kind == FAILURE and _counted(toks):
            return Outcome(SUCCESS, "", line)  # "12 examples, 0 failures": a run with nothing failed
    return None


def _a_name(line: str) -> bool:
    """A short name in title case that starts with an outcome word ("Broken Harvest", "Lost Harbour"): English
    puts a describing participle before its noun; a status puts it after ("Build broken", "Order Confirmed")."""
    words = line.split()
    if not 2 <= len(words) <= 4 or not all(w[:1].isupper() and w.isalpha() for w in words):
        return False
    first, second = words[0].lower(), words[1].lower()
    return first in ALL_WORDS and second not in ALL_WORDS and second not in _RESULT_FOLLOWERS


def _counted(toks: list[str]) -> bool:
    """A line of counts ("12 examples, 0 failures"): some other number than the zero."""
    return sum(t.isdigit() and t != "0" for t in toks) >= 1


# After a result word these continue a result ("won by resignation", "lost on time", "win!", "won 3-1"); any
# other word makes the result word a modifier of a compound noun: "victory points", "win rate", "draw pile",
# "lost connection" are labels and states, not results (English compounds put the head noun last).
_RESULT_FOLLOWERS = frozenset("by on for with as in after at against vs versus the a this that again today by".split())
_CONTEST_NOUNS = frozenset("game match round race set frame bout".split())  # "Tie game", "Draw match"


def _follows_as_report(nxt: str) -> bool:
    """A participle or a contest's own noun after a result word continues the report ("Draw agreed")."""
    return nxt.endswith("ed") or nxt in _PARTICIPLES or nxt in _CONTEST_NOUNS


def _noun_modifier(toks: list[str], i: int, line: str) -> bool:
    """An outcome noun that only modifies the noun after it ("error log", "replacement part")."""
    if toks[i] not in _NOUNS or toks[i] in _LEXICON[WIN] | _LEXICON[LOSS] | _LEXICON[DRAW]:
        return False
    if i + 1 >= len(toks) or toks[i + 1].isdigit() or _follows_as_report(toks[i + 1]):
        return False
    if re.search(rf"\b{re.escape(toks[i])}\b\s*[:!.,;—–-]", line.lower()):
        return False
    if re.search(rf"\b{re.escape(toks[i])}\b\s+[\w-]*\d", line.lower()):
        return False  # a code follows: "Fault E-1", "Error 0x80070005"
    return toks[i + 1] not in _RESULT_FOLLOWERS and toks[i + 1] not in ALL_WORDS


def _compound(toks: list[str], i: int, line: str) -> bool:
    if i + 1 >= len(toks) or toks[i + 1].isdigit():
        return False
    if i == 0 and toks[1] in ("a", "an", "the", "this", "that"):
        return True  # an imperative: "Draw a card", "Win the next round"
    word = re.escape(toks[i])
    if re.search(rf"\b{word}\b\s*[:!.,;—–-]", line.lower()):
        return False  # "Winner: Kazimir", "Victory!", "Draw — by agreement"
    if _follows_as_report(toks[i + 1]):
        return False  # "Draw agreed", "Tie game"
    return toks[i + 1] not in _RESULT_FOLLOWERS and toks[i + 1] not in ALL_WORDS


def _finish(
    kind: str, toks: list[str], i: int, line: str, you: frozenset[str], *, phrase: bool = False
) -> Outcome | None:
    if kind in ("concede", WIN, LOSS, DRAW):
        if len(toks) > MAX_CONTEST_WORDS or (not phrase and _compound(toks, i, line)):
            return None
        if toks[i] == "winner" and i + 1 < len(toks):
            mine = toks[i + 1] in you or toks[i + 1] == "you"
            return Outcome(WIN if mine else LOSS, "you" if mine else "other", line)
        subject = _subject(toks, i, you)
        if kind == DRAW:
            return Outcome(DRAW, "", line)
        mine = subject == "you"
        if kind == "concede":
            return Outcome(LOSS if mine else WIN, subject, line)
        if kind == WIN:
            return Outcome(WIN if mine else LOSS, subject, line)
        return Outcome(LOSS if mine else WIN, subject, line)
    return Outcome(kind, "", line)


def stated_outcomes(text: str) -> frozenset[str]:
    """Every outcome a title or summary states, not negated ("Match: win (DEFEAT)" states win and loss). A name
    is written from the viewer's side, so a contest word is the viewer's own result; a concession names no side."""
    toks = tokens(text)
    found = set()
    for i, tok in enumerate(toks):
        for kind, vocab in _LEXICON.items():
            if tok in vocab and kind != "concede" and not _negated(toks, i):
                found.add(kind)
    return frozenset(found)


def side_tokens(lines: list[str], owner_names: frozenset[str] = frozenset()) -> frozenset[str]:
    """The user's own side in a contest, from lines that put "you" (or the owner's name) next to a name or
    colour: "White (you)", "You play Black", "Red: Wren Halvorsen". Returns lower-case tokens (may be empty)."""
    out: set[str] = set()
    for line in lines:
        toks = tokens(line)
        if not ("you" in toks or set(toks) & owner_names) or len(toks) > 6:
            continue
        rest = [t for t in toks if t not in _SIDE_STOP and t not in owner_names and not t.isdigit() and len(t) > 2]
        if len(rest) == 1:
            out.add(rest[0])
    return frozenset(out)


_SIDE_STOP = (
    frozenset("you are play playing plays as with the your side team colour color is me vs versus".split()) | ALL_WORDS
)
