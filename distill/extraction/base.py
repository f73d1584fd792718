"""The extraction interface: what goes in (a day's conversations) and what comes out (candidates).

Both extractors (deterministic and LLM) take a ``DayInput`` and return an ``ExtractionResult``; every candidate
records the extractor id and version so evidence says which code produced it.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import asdict, dataclass, field, fields
from datetime import datetime

from ledger.choices import Importance

KINDS = ("identity", "preference", "relationship", "place", "work", "plan", "commitment", "decision", "health", "other")
IMPORTANCE = tuple(Importance.values)
ATTRIBUTIONS = ("user", "third_party", "unknown")


@dataclass
class TurnIn:
    index: int  # position within the pass's talk, across its conversations (stable link target)
    speaker_name: str  # a human name, or the provider label when no name is known
    is_owner: bool
    text: str  # cleaned and redacted upstream
    started_at: datetime | None = None


@dataclass
class ConversationIn:
    started_at: datetime | None
    turns: list[TurnIn]
    external_id: str = ""
    title: str = ""
    owner_confidence: float = 1.0  # how sure the source is about which speaker is the owner


@dataclass
class DayInput:
    owner_name: str  # display name; its first word is used in display text ("Vilde is allergic to cashews")
    conversations: list[ConversationIn]
    source_kind: str = ""
    owner_key: str = ""  # the owner's id: keys the LLM's daily call cap
    timezone: str = ""  # the owner's IANA zone: the local day a turn was said on ("tomorrow" → a date)


@dataclass
class Evidence:
    first_index: int
    last_index: int
    quote: str  # the (already redacted) text of the turn the claim came from


@dataclass
class Candidate:
    subject: str  # "user", "person:<name>" or "unknown"
    predicate: str  # kind-scoped predicate, e.g. "health:allergic"
    args: list[str]
    content: str  # display text, third person
    kind: str
    importance: str
    extraction_confidence: float
    capture_confidence: float
    attribution: str  # user | third_party | unknown
    person: str = ""  # the third party's name when attribution is third_party
    evidence: Evidence | None = None
    valid_from: datetime | None = None
    flags: list[str] = field(default_factory=list)  # why confidence was lowered (hypothetical, injection, ...)
    extractor: str = ""
    extractor_version: str = ""
    # The most this candidate may become whatever its score: "" (no limit), "pending_review" (plausible but not
    # certain: review at most) or "dropped" (not a claim at all); ceiling_reason says why (shown in review).
    ceiling: str = ""
    ceiling_reason: str = ""
    # Parse features for the trained gate model (see FEATURES below) and other signals that are not the decision
    # themselves (e.g. "llm_confidence": the LLM's own confidence in a claim it extracted); missing keys = absent.
    features: dict = field(default_factory=dict)

    @property
    def content_hash(self) -> str:
        return content_hash(self.content)

    @property
    def proposition_key(self) -> str:
        return proposition_key(self.subject, self.predicate, self.args, self.content)

    def as_dict(self) -> dict:
        data = asdict(self)
        data["valid_from"] = self.valid_from.isoformat() if self.valid_from else None
        data["content_hash"] = self.content_hash
        data["proposition_key"] = self.proposition_key
        return data

    @classmethod
    def from_dict(cls, data: dict) -> Candidate:
        """The inverse of ``as_dict`` (its derived keys are recomputed, not read)."""
        names = {f.name for f in fields(cls)}
        values = {k: v for k, v in data.items() if k in names}
        if values.get("evidence"):
            values["evidence"] = Evidence(**values["evidence"])
        if values.get("valid_from"):
            values["valid_from"] = datetime.fromisoformat(values["valid_from"])
        return cls(**values)


# ``Candidate.features`` filled by the deterministic extractor (distill.extraction.parse_claims / deterministic);
# values are str, bool, int or float, except ``words`` (a list of lower-case lemmas of the claim's clause).
FEATURES = {
    "subject_type": "owner | listener | named_person | pronoun | unknown (whom the claim is about, and how found)",
    "attribution_confidence": "0..1: how sure the subject is (owner flag, speaker named by themselves/provider...)",
    "subject_kind": "first | first_plural | second | named | pronoun | possessed: the subject's form in the clause",
    "grammatical_person": "first | second | third: how the clause names its subject",
    "subject_relation": "the noun of a possessed subject ('my sister' -> 'sister', 'my ferritin' -> 'ferritin')",
    "subject_plural": "the subject is 'we'",
    "subject_coordinated": "the subject has conjuncts ('my partner and I')",
    "implicit_subject": "'I' left out ('Took the ferry to Hvar')",
    "inherited_subject": "subject shared with a coordinated verb ('I dance, run a school and bake')",
    "negated": "negation on the predicate or 'no' on its object",
    "modality": "none | can | could | will | would | should | might | must | want | need | wish | decided | "
    "start | stop | keep | used_to",
    "control_verb": "lemma of the control verb whose complement carries the claim ('want' in 'want to learn')",
    "hedged": "epistemic adverb or 'I think/guess…' governing the clause",
    "tense": "past | present | future",
    "aspect": "simple | progressive | perfect | perfect_progressive | habitual",
    "habitual": "present simple action verb, or a frequency adverb ('always', 'every')",
    "is_question": "the clause asks (question mark, inversion, wh-word); tag questions after a first-person "
    "statement do not count",
    "conditional": "under 'if/unless/…' or with such a clause attached",
    "hypothetical": "would/could, 'wish', 'imagine', 'someday'",
    "in_quote": "inside quotation marks",
    "reported": "complement of a verb of saying/thinking whose subject is not the speaker",
    "reporter": "that verb's subject word",
    "imperative": "an order (never a candidate today)",
    "coordinated": "one of several coordinated predicates or objects",
    "exclamation": "the sentence ends with '!'",
    "sarcasm_cues": "count of generic irony cues (see parse_claims.sarcasm_cues; laughter in the reply counts)",
    "momentary": "progressive with 'just/now/currently/quick…': a passing action",
    "near_term": "a time word of the next hours ('tonight', 'in a minute', 'later')",
    "offer_to_listener": "will/can/let me … you / for you: a small offer",
    "date_anchored": "a relative day in the claim was followed by its date ('next Saturday (June 20)')",
    "figurative_cues": "1 when a verb of extremity is said of the speaker ('killing me') or 'literally'",
    "object_vague": "the complement is a bare pronoun or 'something/stuff'",
    "date_fragment_joined": "a verbless date sentence after the claim was joined to it",
    "date_from_next_turn": "that date came from the same speaker's next turn (evidence spans both)",
    "laughed_at": "the reply opens with laughter",
    "verb_lemma": "lemma of the predicate verb (the complement of a control verb)",
    "verb_tag": "its Penn tag",
    "predicate": "verb lemma + particle/preposition, or 'be <complement> [prep]'",
    "particle": "verb particle ('back' in 'came back')",
    "preposition": "preposition introducing the object, when the object is a prepositional object",
    "head_dep": "dependency label of the predicate head (ROOT, conj, ccomp, …)",
    "object_head_lemma": "lemma of the complement's head",
    "object_pos": "its coarse part of speech",
    "object_dep": "its dependency label",
    "object_ent_label": "its entity label (GPE, PERSON, DATE, …) or ''",
    "object_is_pronoun": "the complement is a pronoun",
    "object_has_poss_first": "the complement is 'my …'",
    "has_date": "a DATE/TIME entity in the clause",
    "has_quantity": "a number or QUANTITY/CARDINAL/MONEY/PERCENT/ORDINAL entity in the clause",
    "has_place": "a GPE/LOC/FAC entity in the clause",
    "has_person": "a PERSON entity in the clause",
    "has_org": "an ORG entity in the clause",
    "n_tokens": "tokens in the clause",
    "content_words": "non-stop nouns, proper nouns, adjectives, numbers and verbs in the clause",
    "words": "list of lower-case lemmas of the clause (for hashing)",
    "kind": "kind assigned by distill.extraction.kinds",
    "importance": "importance assigned with it",
    "turn_position": "0..1 position of the turn in its conversation",
    "turn_index": "position of the turn in its conversation",
    "turn_n_tokens": "tokens in the whole turn",
    "speaker_is_owner": "the turn is the owner's",
    "speaker": "the name resolved for the turn's speaker ('' when unknown): whom a quoted memory names",
    "prev_turn_question": "the previous turn ends with '?'",
    "answer_to_question": "built from an answer to the previous turn's question",
    "agreed_across_turns": "a proposal the other speaker agreed to",
    "introduction": "'This is Leif. My husband.'",
    "cancelled_later": "a later turn the same day cancels or moves it",
    "capture_confidence": "how cleanly the device heard the turn",
    "injection_like": "the turn reads like an instruction to an AI",
}


@dataclass
class ExtractionResult:
    candidates: list[Candidate] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    extractor: str = ""
    extractor_version: str = ""


_NORM = re.compile(r"[^a-z0-9 ]+")


def normalize_text(text: str) -> str:
    return " ".join(_NORM.sub(" ", (text or "").lower()).split())


def content_hash(text: str) -> str:
    return hashlib.sha256(normalize_text(text).encode()).hexdigest()


def proposition_key(subject: str, predicate: str, args: list[str], content: str) -> str:
    raw = "|".join([subject.lower(), predicate.lower(), normalize_text(" ".join(args)) or normalize_text(content)])
    return hashlib.sha256(raw.encode()).hexdigest()[:32]


class Extractor:
    """Interface: ``extract(day) -> ExtractionResult``. ``ID`` and ``VERSION`` go on every candidate's evidence."""

    ID = ""
    VERSION = ""

    def extract(self, day: DayInput) -> ExtractionResult:  # pragma: no cover - interface
        raise NotImplementedError
