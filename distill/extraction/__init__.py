"""Extractors behind one interface (see ``base.Extractor``): deterministic by default, LLM when configured."""

from __future__ import annotations

from distill.extraction.base import Candidate, ConversationIn, DayInput, ExtractionResult, TurnIn
from distill.extraction.deterministic import DeterministicExtractor
from distill.extraction.llm import LLMExtractor, extract_day

__all__ = [
    "Candidate",
    "ConversationIn",
    "DayInput",
    "DeterministicExtractor",
    "ExtractionResult",
    "LLMExtractor",
    "TurnIn",
    "extract_day",
]
