"""Pure ranking pieces: weighted reciprocal-rank fusion, final scoring, MMR. No database here.

Why weighted: on conversational memory the exact words and names carry most of the signal, so an unweighted
RRF of full-text and a weaker dense ranking drags the full-text ranking down (see the retrieval anchors).
The full-text list gets the larger weight; the vector list mainly rescues paraphrases full-text misses.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass

# A small k keeps the head of the stronger list on top (k=60 comes from fusing long web rankings; here the
# lists are 50 deep and the first few full-text hits matter most).
RRF_K = 10
DEFAULT_WEIGHTS = {"fulltext": 1.0, "vector": 0.2}


def weighted_rrf(
    rankings: Mapping[str, Sequence[Hashable]],
    weights: Mapping[str, float] | None = None,
    *,
    k: int = RRF_K,
) -> list[tuple[Hashable, float]]:
    """Fuse ranked lists: score(d) = sum over lists of weight / (k + rank), rank starting at 1.

    Lists missing from ``weights`` get weight 1. Ties keep the order of first appearance (stable), so the
    result is deterministic.
    """
    weights = weights or {}
    scores: dict[Hashable, float] = {}
    first_seen: dict[Hashable, int] = {}
    counter = 0
    for name, ranking in rankings.items():
        w = weights.get(name, 1.0)
        if w <= 0:
            continue
        seen_here: set = set()
        for rank, key in enumerate(ranking, start=1):
            if key in seen_here:
                continue
            seen_here.add(key)
            scores[key] = scores.get(key, 0.0) + w / (k + rank)
            if key not in first_seen:
                first_seen[key] = counter
                counter += 1
    return sorted(scores.items(), key=lambda kv: (-kv[1], first_seen[kv[0]]))


def recency_score(age_days: float, *, half_life_days: float = 30.0) -> float:
    """1.0 for now, 0.5 after one half-life; future dates count as now."""
    return math.pow(0.5, max(0.0, age_days) / half_life_days)


@dataclass(frozen=True)
class ScoreWeights:
    relevance: float = 0.8
    recency: float = 0.1
    strength: float = 0.1


def final_score(relevance: float, recency: float, strength: float, weights: ScoreWeights = ScoreWeights()) -> float:
    """Combine normalised relevance (0..1) with recency (0..1) and salience/strength (0..1).

    Relevance gates the others (multiplied in) so an old-but-exact match beats a fresh irrelevant one.
    """
    relevance = min(max(relevance, 0.0), 1.0)
    return relevance * (weights.relevance + weights.recency * recency + weights.strength * min(max(strength, 0.0), 1.0))


def mmr(
    candidates: Sequence[tuple[Hashable, float]],
    similarity: Callable[[Hashable, Hashable], float],
    *,
    limit: int,
    lambda_: float = 0.75,
    duplicate_threshold: float = 0.92,
) -> list[tuple[Hashable, float]]:
    """Maximal marginal relevance: greedily pick the candidate maximising λ·rel − (1−λ)·max-sim to picked ones.

    Candidates at or above ``duplicate_threshold`` similarity to an already picked one are dropped outright
    (near-duplicates, e.g. the same sentence captured by two devices). Returns (key, relevance) pairs.
    """
    remaining = list(candidates)
    # Each candidate's highest similarity to anything picked so far, updated with the newest pick only:
    # O(limit × candidates) similarity calls instead of O(limit × candidates × picked).
    max_sim = [0.0] * len(remaining)
    alive = [True] * len(remaining)
    picked: list[tuple[Hashable, float]] = []
    while len(picked) < limit:
        best_i, best_val = -1, -math.inf
        for i, (_key, rel) in enumerate(remaining):
            if not alive[i]:
                continue
            val = lambda_ * rel - (1 - lambda_) * max_sim[i]
            if val > best_val:
                best_i, best_val = i, val
        if best_i < 0:
            break
        alive[best_i] = False
        chosen = remaining[best_i]
        picked.append(chosen)
        for i, (key, _rel) in enumerate(remaining):
            if alive[i]:
                sim = similarity(key, chosen[0])
                if sim >= duplicate_threshold:
                    alive[i] = False  # a near-duplicate of something already picked
                elif sim > max_sim[i]:
                    max_sim[i] = sim
    return picked


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=False))
    na = math.sqrt(sum(x * x for x in a))
    nb = math.sqrt(sum(y * y for y in b))
    if na == 0 or nb == 0:
        return 0.0
    return dot / (na * nb)
