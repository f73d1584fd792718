"""Extractors behind one interface: the deterministic parse (``deterministic``) and the LLM (``llm``). Which runs
for a pass, and what stands in for a chunk the LLM could not answer, is the candidates step's choice
(``distill.steps.candidates``)."""

from __future__ import annotations

from distill.extraction.base import Candidate, ConversationIn, DayInput, ExtractionResult, TurnIn
from distill.extraction.deterministic import DeterministicExtractor
from distill.extraction.llm import LLMExtractor

__all__ = [
    "Candidate",
    "ConversationIn",
    "DayInput",
    "DeterministicExtractor",
    "ExtractionResult",
    "LLMExtractor",
    "TurnIn",
]
