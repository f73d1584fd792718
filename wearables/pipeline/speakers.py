"""Step 5: speaker labeling. Decide, per conversation, which speaker is the wearer and name everyone.

Evidence, strongest first (the first that decides wins; the method and a confidence are recorded):
1. the user's own correction for this conversation (``assignments``),
2. the device's flag (Limitless ``user``, Omi ``is_user``),
3. the persistent registry (a stable provider identity the user mapped to themselves),
4. another device's recording of the same conversation whose wearer is known, aligned by time and text,
5. cues in the text: people address the wearer by name and the wearer answers; people rarely say their own
   name except to introduce themselves,
6. the most talkative speaker, with low confidence.
Bee's labels ("0", "1") are per-conversation diarization, so "0" means nothing on its own.
"""

from __future__ import annotations

import re
from collections import defaultdict
from datetime import timedelta

from ledger.lexicon import STOPWORDS
from wearables.pipeline.types import Convo, KnownPerson, PipelineConfig, Turn

PROVIDER = "provider"
USER = "user"
REGISTRY = "registry"
OTHER_DEVICE = "other_device"
TEXT_CUES = "text_cues"
MOST_TALKATIVE = "most_talkative"
NONE = "none"

# Provider labels that are not anyone's name.
GENERIC_LABELS = {"", "user", "unknown", "speaker", "you", "me"}
_TOKEN_RE = re.compile(r"[a-z0-9']+")
# Text cues skip only the very commonest words, a subset of the shared list: the full list would change which
# turns share words with a known person's cues, and so who gets named.
_STOP = STOPWORDS & frozenset(
    "the a an and or but to of in on at is it i you that this so we be was for with my me".split()
)


def pretty_label(label: str) -> str:
    if not label or label.lower() == "unknown":
        return "Unknown speaker"
    m = re.fullmatch(r"(?i)speaker[_ ]?0*(\d+)", label)
    if m:
        return f"Speaker {m.group(1)}"
    if label.isdigit():
        return f"Speaker {label}"
    return label


def _tokens(text: str) -> set[str]:
    return {t for t in _TOKEN_RE.findall(text.lower()) if t not in _STOP}


def _convo_end(c: Convo):
    if c.ended_at:
        return c.ended_at
    ends = [t.ended_at or t.started_at for t in c.turns if (t.ended_at or t.started_at)]
    return max(ends) if ends else c.started_at + timedelta(minutes=1)


def overlaps(a: Convo, b: Convo, slack: timedelta = timedelta(seconds=90)) -> bool:
    """Two recordings of the same stretch of time (devices start a few seconds apart)."""
    return a.started_at - slack < _convo_end(b) and b.started_at - slack < _convo_end(a)


def text_similarity(a: set[str], b: set[str]) -> float:
    """Containment of the smaller turn in the larger (Bee merges turns), ignoring very short turns."""
    if len(a) < 3 or len(b) < 3:
        return 0.0
    return len(a & b) / min(len(a), len(b))


def wearer_from_other_device(convo: Convo, reference: list[Convo]) -> tuple[str, float] | None:
    """Align each turn with the best-matching turn of an overlapping recording and let them vote."""
    others = [r for r in reference if r.source != convo.source and overlaps(convo, r)]
    if not others:
        return None
    ref_turns = [(t, _tokens(t.text)) for r in others for t in r.turns if t.is_wearer is not None]
    votes: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])
    matched = 0
    for turn in convo.turns:
        toks = _tokens(turn.text)
        best, best_sim = None, 0.0
        for ref, ref_toks in ref_turns:
            if turn.started_at and ref.started_at and abs(turn.started_at - ref.started_at) > timedelta(minutes=2):
                continue
            sim = text_similarity(toks, ref_toks)
            if sim > best_sim:
                best, best_sim = ref, sim
        if best is not None and best_sim >= 0.5:
            matched += 1
            votes[turn.speaker_label][0 if best.is_wearer else 1] += best_sim
    if matched < 2:
        return None
    label, (yes, no) = max(votes.items(), key=lambda kv: kv[1][0] - kv[1][1])
    if yes <= no:
        return None
    agreement = (yes - no) / (yes + no)
    return label, round(min(0.95, 0.55 + 0.4 * agreement * min(1.0, matched / 4)), 2)


# Capitalized words that open a sentence or an exclamation without naming anyone.
_NOT_NAMES = set(
    """okay ok yeah yes yep no nope well so oh hi hey hello right wait sure thanks thank great perfect amazing sorry
    please congratulations congrats fair good cool nice wow ha haha alright anyway actually also and but then now look
    listen honestly seriously totally exactly absolutely definitely really uh um hmm fine true same what why how who
    where when god gosh man dude guys everyone everybody bye goodbye morning night evening afternoon welcome cheers
    love babe baby honey sweetie buddy sir maam ma'am i it that this there here you we they he she me my our your
    stop go come hang hold done deal ugh ooh aw aww yay ah eh mm mhm totally obviously literally basically
    january february march april may june july august september october november december monday tuesday
    wednesday thursday friday saturday sunday today tomorrow tonight yesterday""".split()
)
_TITLE = r"(?:(?:Dr|Mr|Mrs|Ms|Mx|Prof)\.?\s+)?"
_NAME = _TITLE + r"[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?"
_GREETING = r"(?:hi|hey|hello|thanks|thank you|bye|good morning|morning|good night|night|congrats|congratulations|sorry|welcome)"
_VOCATIVE_RES = [
    re.compile(rf"(?i:\b{_GREETING}),?\s+({_NAME})\b(?!['’]s)"),  # "Hi, Dr. Cho!", "Thanks Priya"
    re.compile(rf",\s+({_NAME})\s*[.?!]*\s*$"),  # "Thank you, Dion."
    re.compile(rf"^\s*({_NAME})\s*[,!?]"),  # "Theo! That's amazing!", "Hannah, this is ..."
]
_INTRO_RE = re.compile(
    rf"(?i:\b(?:my name is|this is|i'm|i am|call me))\s+({_NAME})\b(?!['’]s)(?!,?\s+(?:she|he|they)\b)"
)


def _is_name(candidate: str) -> bool:
    words = re.sub(r"^(?:Dr|Mr|Mrs|Ms|Mx|Prof)\.?\s+", "", candidate).split()
    return bool(words) and words[0].lower() not in _NOT_NAMES


def _matches_user(candidate: str, user_names: set[str]) -> bool:
    words = {w.lower() for w in re.findall(r"[A-Za-z']+", candidate)}
    return bool(words & user_names)


def _addressees(turns: list[Turn], i: int) -> list[tuple[str, float]]:
    """Who a vocative in turn ``i`` is aimed at: the neighbouring turns of other speakers."""
    speaker = turns[i].speaker_label
    prev = next((t for t in reversed(turns[max(0, i - 2) : i]) if t.speaker_label != speaker), None)
    nxt = next((t for t in turns[i + 1 : i + 3] if t.speaker_label != speaker), None)
    out = []
    if prev is not None:
        out.append((prev.speaker_label, 0.6))
    if nxt is not None:
        out.append((nxt.speaker_label, 0.6))
    return out


def wearer_from_text_cues(convo: Convo, names: list[str]) -> tuple[str, float] | None:
    """Vote with names: being called the user's name, introducing yourself, addressing others by theirs."""
    user_names = {w.lower() for n in names for w in re.findall(r"[A-Za-z']+", n or "") if len(w) > 1}
    labels = {t.speaker_label for t in convo.turns}
    if not user_names or len(labels) < 2:
        return None
    score: dict[str, float] = defaultdict(float)
    evidence = 0
    for i, turn in enumerate(convo.turns):
        intro = _INTRO_RE.search(turn.text)
        if intro and _is_name(intro.group(1)):
            # Introducing yourself: "I'm Maya" says who the speaker is; "this is Dion" says who they are not.
            score[turn.speaker_label] += 2.0 if _matches_user(intro.group(1), user_names) else -1.5
            evidence += 1
        seen = set()
        for pattern in _VOCATIVE_RES:
            for m in pattern.finditer(turn.text):
                name = m.group(1)
                if name in seen or not _is_name(name):
                    continue
                seen.add(name)
                evidence += 1
                is_user = _matches_user(name, user_names)
                if is_user:
                    score[turn.speaker_label] -= 1.0  # people rarely call themselves by name
                for label, weight in _addressees(convo.turns, i):
                    score[label] += weight if is_user else -weight
        # A third-person mention of the user's name ("Maya said") hints the speaker is someone else.
        if not seen and not intro:
            for n in user_names:
                if re.search(rf"(?i)\b{re.escape(n)}\b(?!['’]s)", turn.text):
                    score[turn.speaker_label] -= 0.5
                    evidence += 1
                    break
    if not evidence:
        return None
    ranked = sorted(((score.get(label, 0.0), label) for label in labels), reverse=True)
    top, label = ranked[0]
    margin = top - ranked[1][0]
    # With two speakers, "the other one is not the wearer" is enough; with more it is not.
    if (top < 0 and len(labels) > 2) or margin < 1.0:
        return None
    return label, round(min(0.85, 0.5 + 0.1 * margin), 2)


def most_talkative(convo: Convo) -> tuple[str, float] | None:
    words: dict[str, int] = defaultdict(int)
    for t in convo.turns:
        words[t.speaker_label] += len(t.text.split())
    if not words:
        return None
    label = max(words, key=words.get)
    return label, (0.4 if len(words) == 1 else 0.3)


def _registry_person(turn: Turn, source: str, cfg: PipelineConfig) -> KnownPerson | None:
    if turn.person_id and ("person_id", turn.person_id) in cfg.identities:
        return cfg.identities[("person_id", turn.person_id)]
    name = turn.speaker_name or (turn.speaker_label if source == "limitless" else "")
    if name and name.lower() not in GENERIC_LABELS:
        return cfg.identities.get(("display_name", name.lower()))
    return None


def label_conversation(convo: Convo, cfg: PipelineConfig) -> Convo:
    persons = _known_persons(convo, cfg)
    user_assigned = {label for (cid, label), p in cfg.assignments.items() if cid == convo.external_id}
    wearer_labels, method, confidence = _find_wearer(convo, cfg, persons, user_assigned)
    turns = [_labelled_turn(turn, cfg, persons, user_assigned, wearer_labels, method) for turn in convo.turns]
    return Convo(
        **{
            **convo.__dict__,
            "turns": turns,
            "wearer_label": ",".join(sorted(wearer_labels)),
            "wearer_method": method,
            "wearer_confidence": confidence,
        }
    )


def _known_persons(convo: Convo, cfg: PipelineConfig) -> dict[str, KnownPerson]:
    """Speaker label -> person: the user's correction, else the registry, else the device naming the user."""
    persons: dict[str, KnownPerson] = {}
    own_names = {n.lower() for n in [cfg.user_name, *cfg.self_names] if n}
    for turn in convo.turns:
        label = turn.speaker_label
        assigned = cfg.assignments.get((convo.external_id, label))
        if assigned is not None:
            persons[label] = assigned
        elif label not in persons:
            found = _registry_person(turn, convo.source, cfg)
            if found is not None:
                persons[label] = found
        if label not in persons and turn.speaker_name and turn.speaker_name.lower() in own_names:
            # The device names this speaker with the user's own name (Omi developer API profiles).
            persons[label] = cfg.self_person or KnownPerson(pk=None, name=cfg.user_name, is_self=True)
    return persons


def _find_wearer(convo: Convo, cfg: PipelineConfig, persons, user_assigned) -> tuple[set[str], str, float]:
    """Which labels are the wearer, how we know, and how sure: the user, the device, the registry, then cues."""
    self_by_user = {label for label in user_assigned if persons[label].is_self}
    if self_by_user:
        return self_by_user, USER, 1.0
    if any(t.is_wearer is not None for t in convo.turns):
        return {t.speaker_label for t in convo.turns if t.is_wearer}, PROVIDER, 0.95
    if any(p.is_self for p in persons.values()):
        return {label for label, p in persons.items() if p.is_self}, REGISTRY, 0.9
    names = list(cfg.self_names) + [cfg.user_name, cfg.user_name.split()[0] if cfg.user_name.split() else ""]
    for how, decide in (
        (OTHER_DEVICE, lambda: wearer_from_other_device(convo, cfg.reference)),
        (TEXT_CUES, lambda: wearer_from_text_cues(convo, names)),
        (MOST_TALKATIVE, lambda: most_talkative(convo)),
    ):
        found = decide()
        if found:
            return {found[0]}, how, found[1]
    return set(), NONE, 0.0


def _labelled_turn(turn: Turn, cfg: PipelineConfig, persons, user_assigned, wearer_labels, method) -> Turn:
    label = turn.speaker_label
    person = persons.get(label)
    if method == PROVIDER and label not in user_assigned:
        is_wearer = bool(turn.is_wearer)  # keep the device's per-utterance flag
    elif person is not None and label in user_assigned:
        is_wearer = person.is_self
    else:
        is_wearer = label in wearer_labels
    if is_wearer:
        name = f"{cfg.user_name} (you)"
        person = cfg.self_person if person is None or not person.is_self else person
    elif person is not None and not person.is_self:
        name = person.name
    else:
        person = None
        generic = (turn.speaker_name or "").lower() in GENERIC_LABELS
        name = turn.speaker_name if turn.speaker_name and not generic else pretty_label(label)
    return Turn(
        **{**turn.__dict__, "is_wearer": is_wearer, "speaker_name": name, "person_pk": person.pk if person else None}
    )


def label_speakers(convos: list[Convo], cfg: PipelineConfig) -> list[Convo]:
    return [label_conversation(c, cfg) for c in convos]
