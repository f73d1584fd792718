"""What an agent is told from memory, and when: the short block at session start, the memories recalled for a
prompt, and the selection both (and the memory proxy) share.

``recalled`` keeps of what recall selected only the items that match the question on their own (a topic word in
common: recall's session context adds neighbouring turns that share none, and those are padding) and that the
caller may show (``chats.origins``): never a turn, session summary or project fact of another project, never a
lesson (lessons come through their own project-scoped path), never the memory proxy's own earlier exchanges as
evidence for its next answer. Nothing is shown when the gate wants no memory.
"""

from __future__ import annotations

from collections.abc import Callable

from accounts.services import user_timezone
from chats.models import AgentProject, ChatSession, Lesson
from chats.origins import Origin, citation, origins
from chats.text import first_sentence
from ledger.choices import Status
from ledger.lexicon import stem
from ledger.models import Episode, PinnedFact
from ledger.recall import services as recall_services
from ledger.recall.lexical import count_tokens, query_terms
from ledger.recall.planner import RecallItem, when_label

PROMPT_BUDGET = 300  # tokens of recalled memory added to one prompt
START_BUDGET = 450  # tokens of the session-start block
MAX_PINNED = 5
MAX_LESSONS = 5
RECALL_HEADROOM = 3  # recall packs for this many budgets before the caller's own filter (see recalled)


def matches_query(query: str, item: RecallItem) -> bool:
    """Whether the item shares a topic word (by stem) with the query: what recall found for the item itself,
    not for a neighbour."""
    wanted = {stem(w) for w in query_terms(query)}
    if not wanted:
        return False
    return bool(wanted & {stem(w) for w in query_terms(item.text)})


def _usable(owner, query: str, items: list[RecallItem], allow) -> list[RecallItem]:
    items = [i for i in items if i.kind != "identity" and matches_query(query, i)]
    found = origins(owner, [citation(i) for i in items])

    def shown(item: RecallItem) -> bool:
        origin = found.get(citation(item))
        return origin is None or (not origin.lesson and (allow is None or allow(origin)))

    return [i for i in items if shown(i)]


def recalled(owner, query: str, *, budget: int, allow: Callable[[Origin], bool] | None = None) -> list[RecallItem]:
    """The items recall selected for ``query`` that match it on their own and that ``allow`` accepts (items from a
    chat session or a project are passed to it with their ``chats.origins.Origin``); never identity lines, never
    lessons. [] when the gate wants no memory."""
    query = (query or "").strip()
    if not query:
        return []
    # Recall packs for more than the budget: what the caller may not show (another project's knowledge, lessons)
    # is left out first, and what it may show then fills the budget instead of leaving it to the hidden items.
    # Usage is counted here, for what is shown, not by recall for all it packed.
    wide = budget * RECALL_HEADROOM
    result = recall_services.recall_context(owner=owner, query=query[:4000], budget_tokens=wide, feedback=False)
    if not result.gate.wants_memory:
        return []
    items = _usable(owner, query, result.items, allow)
    if not items and result.gate.route == "pinned":
        # Recall's own fallback for a named entity with nothing pinned (here: nothing pinned but lessons).
        facts = recall_services.recall_context(
            owner=owner, query=query[:4000], budget_tokens=wide, scope="facts", feedback=False
        )
        items = _usable(owner, query, facts.items, allow)
    shown = _within(owner, items, budget)
    recall_services.queue_usage(owner=owner, items=shown)
    return shown


def _within(owner, items: list[RecallItem], budget: int) -> list[RecallItem]:
    """The items, best first, whose lines (as ``block_lines`` writes them) fit in ``budget`` tokens."""
    zone, used, out = user_timezone(owner), 0, []
    for item in items:
        cost = count_tokens(item.line(tz=zone))
        if used + cost <= budget:
            out.append(item)
            used += cost
    return out


def block_lines(owner, items: list[RecallItem]) -> list[str]:
    zone = user_timezone(owner)
    return [i.line(tz=zone) for i in items]


# --- The session-start block ----------------------------------------------------------------------------------
def _pinned_about_owner(owner, limit: int = MAX_PINNED) -> list[str]:
    rows = (
        PinnedFact.objects.owned_by(owner)
        .select_related("fact")
        .filter(fact__status=Status.ACCEPTED)
        .exclude(fact__tags__contains=["lesson"])
        .order_by("-salience", "-updated_at")[:limit]
    )
    return [p.fact.content.strip() for p in rows if p.fact.content.strip()]


def project_lessons(owner, project: AgentProject | None, limit: int = MAX_LESSONS) -> list[Lesson]:
    """The strongest active lessons that may be shown in ``project`` (its own and unscoped ones)."""
    rows = Lesson.objects.owned_by(owner).active().exclude(fact_public_id__isnull=True).visible_in(project)
    return list(rows.order_by("-strength", "-last_seen_at")[:limit])


def last_session(owner, project: AgentProject | None, *, exclude_session_id: str = "") -> ChatSession | None:
    """The most recent other session in ``project`` (None outside any project: nothing to say)."""
    if project is None:
        return None
    rows = ChatSession.objects.owned_by(owner).in_project(project).filter(parent__isnull=True)
    if exclude_session_id:
        rows = rows.exclude(external_id__endswith=f":{exclude_session_id}")
    return rows.order_by("-last_turn_at", "-id").first()


def session_summary(owner, session: ChatSession) -> str:
    """One line: when (the owner's zone, labelled), the title, and the digest's gist when it was distilled."""
    episode = Episode.objects.owned_by(owner).filter(key=f"chat:{session.public_id}").first()
    when = session.last_turn_at or session.started_at
    stamp = when_label(when.isoformat(), user_timezone(owner)) if when else "undated"
    gist = episode.summary.strip() if episode is not None and episode.summary else ""
    title = (episode.title if episode is not None and episode.title else session.title).strip()
    if not gist:  # not distilled yet: what was asked is still known
        asked = next((t.text for t in session.turns.filter(is_owner=True).order_by("index")[:5] if t.text.strip()), "")
        gist = f"Asked: {first_sentence(asked, 200)}" if asked else ""
    return " — ".join(p for p in (f"[{stamp}] {title}".strip(), gist) if p)


def _last_here(owner, project: AgentProject | None, session_id: str) -> list[str]:
    """The last session in the project: the stored one, or one known so far only from its tool calls when that
    is more recent (its transcript has not arrived)."""
    from chats.services.tool_events import pending_activity

    previous = last_session(owner, project, exclude_session_id=session_id)
    _pending_id, activity, at = pending_activity(owner, project, exclude_session_id=session_id)
    if activity and (previous is None or (previous.last_turn_at and at > previous.last_turn_at)):
        stamp = when_label(at.isoformat(), user_timezone(owner))
        return [f"[{stamp}] (transcript not received yet) {activity}"]
    return [session_summary(owner, previous)] if previous else []


def _fit(sections: list[tuple[str, list[str]]], budget: int) -> str:
    lines: list[str] = []
    used = 0
    for header, items in sections:
        if not items:
            continue
        kept = []
        for item in items:
            line = f"- {item}"
            cost = count_tokens(line) + (count_tokens(header) if not kept else 0)
            if used + cost > budget:
                break
            kept.append(line)
            used += cost
        if kept:
            lines += [header, *kept]
    return "\n".join(lines)


def session_start_block(owner, *, project: AgentProject | None, session_id: str = "",
                        lessons: list[Lesson] | None = None) -> str:  # fmt: skip
    """The short block a session starts with: pinned facts about the owner, this project's lessons and what
    happened in the last session here, within START_BUDGET tokens ("" when there is nothing)."""
    lessons = project_lessons(owner, project) if lessons is None else lessons
    place = f" ({project.name})" if project is not None else ""
    block = _fit(
        [
            ("## About the person you work for", _pinned_about_owner(owner)),
            (f"## Lessons for this project{place}", [x.text for x in lessons]),
            (f"## Last session in this project{place}", _last_here(owner, project, session_id)),
        ],
        START_BUDGET,
    )
    return f"Context from Almanac (the person's memory):\n{block}" if block else ""
