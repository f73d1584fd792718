"""Generated ScreenPipe sessions with their truth: ``generate(seed, count, partition)``.

Sessions are composed from parts (``compose``): activities of many kinds (``commerce``, ``work``, ``leisure``)
on many surfaces (``places``), distractors (``distractors``), owners in many time zones, phased collects. The
word pools (``vocab``) are split in two: ``dev`` for development and the tests, ``measure`` held out for the
measurement in ``bench/screen.py``. ``check`` compares what the API answers with the truth.
"""

from __future__ import annotations

from screen.imitation.generator.compose import KINDS, session
from screen.imitation.generator.model import DISTRACTORS, GeneratedSession
from screen.imitation.generator.vocab import DEV, MEASURE

MEASURE_SEED = 40_4040  # the bench's measurement seed: never used in development or the tests


def generate(seed: int, count: int, partition: str = DEV, first: int = 0) -> list[GeneratedSession]:
    """``count`` sessions of ``seed`` (indexes ``first`` ...), each reproducible on its own."""
    return [session(seed, i, partition) for i in range(first, first + count)]


__all__ = ["DEV", "DISTRACTORS", "KINDS", "MEASURE", "MEASURE_SEED", "GeneratedSession", "generate", "session"]
