"""Budget packing for the context block (pure). The orchestration that fills it lives in services.py.

The block an agent receives: identity overrides first (always, tiny), then the items of the one section the
gate chose, best first, each line carrying what the user permits it to be used for and any disclaimer. The
whole block never exceeds ``budget_tokens`` by ``count_tokens``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, tzinfo

from ledger.recall.lexical import count_tokens

BUDGET_DEFAULT = 800
BUDGET_MIN = 100
BUDGET_MAX = 4000

SECTION_TITLES = {
    "identity": "Identity",
    "pinned": "Pinned facts",
    "episodes": "Episodes",
    "transcript": "Transcript excerpts",
    "events": "Screen events",
    "facts": "Facts",
}


@dataclass
class RecallItem:
    """One retrievable thing, whatever its layer. ``id`` is the public id (never an int pk)."""

    id: str
    kind: str  # fact, pinned, episode, utterance, event, identity
    text: str
    score: float = 0.0
    permitted_uses: list[str] = field(default_factory=list)
    disclaimers: list[str] = field(default_factory=list)
    source_ref: str = ""
    occurred_at: str = ""  # ISO date/time when known, shown in the line
    strength: float = 0.5  # salience / confidence / strength, 0..1
    ref_id: int | None = None  # internal pk, for usage feedback only (never serialised)

    def line(self, *, licence: bool = True, tz: tzinfo | None = None) -> str:
        """One block line; ``licence=False`` leaves out the uses and disclaimers (said once in the header).
        ``tz``: the reader's zone; times are shown in it, labelled ("[2026-12-06 23:51 CET]")."""
        parts = []
        if self.occurred_at:
            parts.append(f"[{when_label(self.occurred_at, tz)}]")
        parts.append(self.text.strip())
        # Identity is user-authored: always licensed, kept tiny.
        if licence and self.permitted_uses and self.kind != "identity":
            parts.append(f"(uses: {', '.join(self.permitted_uses)})")
        if licence and self.disclaimers:
            parts.append("— " + "; ".join(self.disclaimers))
        return "- " + " ".join(parts)

    def licence(self) -> str:
        """What the line may be used for and its disclaimers, as shown in a block ("" for none)."""
        text = f"(uses: {', '.join(self.permitted_uses)})" if self.permitted_uses else ""
        return f"{text} — {'; '.join(self.disclaimers)}" if self.disclaimers else text

    def as_dict(self) -> dict:
        return {
            "id": self.id,
            "kind": self.kind,
            "text": self.text,
            "score": round(float(self.score), 4),
            "permitted_uses": list(self.permitted_uses),
            "disclaimers": list(self.disclaimers),
            "source_ref": self.source_ref,
        }


@dataclass
class PackedBlock:
    block: str
    items: list[RecallItem]
    tokens: int


def when_label(occurred_at: str, tz: tzinfo | None = None) -> str:
    """An ISO time as a reader sees it: minutes, in ``tz`` with the zone's name ("2026-12-06 23:51 CET"); a
    date alone stays a date. Without ``tz`` the stored offset is kept and named ("2026-12-06 22:51 UTC"): a
    time is never shown without its zone."""
    text = occurred_at.strip()
    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        return text[:16].replace("T", " ")
    if len(text) <= 10:
        return when.date().isoformat()
    if when.tzinfo is None:
        return f"{when:%Y-%m-%d %H:%M}"
    if tz is not None:
        when = when.astimezone(tz)
        return f"{when:%Y-%m-%d %H:%M} {when.tzname() or ''}".strip()
    offset = when.strftime("%z")
    zone = "UTC" if offset in ("+0000", "-0000") else f"UTC{offset[:3]}:{offset[3:]}"
    return f"{when:%Y-%m-%d %H:%M} {zone}"


def clamp_budget(budget: int | None) -> int:
    if budget is None:
        return BUDGET_DEFAULT
    return max(BUDGET_MIN, min(BUDGET_MAX, int(budget)))


def _truncate_to(text: str, budget: int) -> str:
    """The longest prefix of ``text`` (cut at a word) whose token count fits ``budget``; '' if none."""
    if count_tokens(text) <= budget:
        return text
    cut = text.split(" ")
    lo, hi = 0, len(cut)
    while lo < hi:  # binary search on the number of words kept
        mid = (lo + hi + 1) // 2
        if count_tokens(" ".join(cut[:mid]) + " …") <= budget:
            lo = mid
        else:
            hi = mid - 1
    return (" ".join(cut[:lo]) + " …") if lo else ""


def pack_block(
    identity: Sequence[RecallItem],
    section: str,
    items: Sequence[RecallItem],
    budget_tokens: int,
) -> PackedBlock:
    """Greedy packing of one section: identity first, then ``items`` in order, skipping any that would not fit."""
    return pack_sections(identity, [(section, items, 1.0)], budget_tokens)


class _Packer:
    """Lines packed so far, their additive token estimate and the items they show."""

    def __init__(self, budget_tokens: int, tz: tzinfo | None = None):
        self.budget = budget_tokens
        self.tz = tz
        self.lines: list[str] = []
        self.used = 0
        self.chosen: list[RecallItem] = []

    def add(self, line: str, cost: int | None = None, limit: int | None = None) -> bool:
        cost = count_tokens(line) if cost is None else cost
        if self.used + cost > (self.budget if limit is None else limit):
            return False
        self.lines.append(line)
        self.used += cost
        return True

    def identity(self, items: Sequence[RecallItem]) -> None:
        """The identity lines, the last one cut to fit; no header when none fits."""
        if not items or not self.add(f"## {SECTION_TITLES['identity']}"):
            return
        for item in items:
            line = item.line(tz=self.tz)
            if not self.add(line):
                short = _truncate_to(line, self.budget - self.used)
                if short and self.add(short):
                    self.chosen.append(item)
                break
            self.chosen.append(item)
        if not self.chosen:
            self.lines.pop()
            self.used = 0

    def section(self, section: str, items: Sequence[RecallItem], limit: int) -> None:
        """One section's header and whichever of its lines fit under ``limit``, best first."""
        header = f"## {SECTION_TITLES.get(section, section.title())}"
        # Lines that all carry the same uses and disclaimers (a transcript's turns) say them once, in the header:
        # the budget goes to what was said.
        shared = {item.licence() for item in items}
        common = len(shared) == 1 and len(items) > 1 and next(iter(shared))
        if common:
            header = f"{header} {common}"
        lines_of = [(item, item.line(licence=not common, tz=self.tz)) for item in items]
        costs = [count_tokens(line) for _item, line in lines_of]  # each line's tokens, counted once
        if self.used + count_tokens(header) + min(costs) > limit:
            return
        self.add(header)
        for (item, line), cost in zip(lines_of, costs, strict=True):
            if self.add(line, cost, limit):
                self.chosen.append(item)

    def block(self) -> PackedBlock:
        block = "\n".join(self.lines)
        tokens = count_tokens(block)
        while tokens > self.budget and self.lines:  # defensive: never hand out more than the budget
            self.lines.pop()
            self.chosen = self.chosen[: max(0, len(self.chosen) - 1)]
            block = "\n".join(self.lines)
            tokens = count_tokens(block)
        return PackedBlock(block=block, items=self.chosen, tokens=tokens)


def pack_sections(
    identity: Sequence[RecallItem],
    sections: Sequence[tuple[str, Sequence[RecallItem], float]],
    budget_tokens: int,
    tz: tzinfo | None = None,
) -> PackedBlock:
    """Greedy packing: identity first, then each (section, items, share) in order, items best first, skipping
    any that would not fit.

    A section may use at most ``share`` of the budget left after identity while a later section still has
    items; the last section with items gets whatever is left. Lines are joined with newlines; the token
    estimate is additive over lines, and the final count is taken on the finished block, so the returned
    ``tokens`` is exact and never above the budget.
    """
    packer = _Packer(budget_tokens, tz)
    packer.identity(identity)
    filled = [(section, items, share) for section, items, share in sections if items]
    after_identity = budget_tokens - packer.used
    for n, (section, items, share) in enumerate(filled):
        last = n == len(filled) - 1
        limit = budget_tokens if last else min(budget_tokens, packer.used + int(after_identity * share))
        packer.section(section, items, limit)
    return packer.block()
