"""The transcript pipeline: an explicit, ordered list of pure steps over plain dataclasses.

    raw conversations -> off-the-record elision (own markers, then spans other devices elided) -> cleanup
    -> redaction -> corrections -> speaker labeling -> forgotten people removed

No step touches the database, the network, files or logs; the service layer (wearables.services.sync) loads a
``PipelineConfig`` once, runs ``run_pipeline`` and only then writes. Redaction runs before anything leaves this
module, and once more at the end so a user correction can never re-create a sensitive number.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from wearables.pipeline.cleanup import cleanup
from wearables.pipeline.corrections import correct_conversations
from wearables.pipeline.off_record import elide_off_record, elide_windows
from wearables.pipeline.redact_forgotten import forget_people
from wearables.pipeline.redaction import REDACTED, redact_conversation_texts, redact_text
from wearables.pipeline.speakers import label_speakers
from wearables.pipeline.types import Convo, KnownPerson, PipelineConfig, Turn

__all__ = [
    "REDACTED",
    "STEPS",
    "Convo",
    "KnownPerson",
    "PipelineConfig",
    "Step",
    "Turn",
    "from_raw",
    "redact_text",
    "run_pipeline",
]


def redact_conversations(convos: list[Convo], cfg: PipelineConfig) -> list[Convo]:
    """Each conversation as a whole (a secret read back in the next turn is the same secret), title apart."""
    out = []
    for c in convos:
        texts = redact_conversation_texts([t.text for t in c.turns], cfg.redaction_patterns)
        turns = [Turn(**{**t.__dict__, "text": text}) for t, text in zip(c.turns, texts, strict=True)]
        turns = [t for t in turns if t.text.strip()]
        out.append(Convo(**{**c.__dict__, "turns": turns, "title": redact_text(c.title, cfg.redaction_patterns)}))
    return out


@dataclass(frozen=True)
class Step:
    NAME: str
    run: Callable[[list[Convo], PipelineConfig], list[Convo]]

    def able_to_run(self, cfg: PipelineConfig) -> bool:
        if self.NAME in ("off_the_record", "cross_device_off_record"):
            return cfg.off_the_record
        if self.NAME == "corrections":
            return bool(cfg.corrections)
        return True


STEPS: list[Step] = [
    Step(
        "off_the_record",
        lambda cs, cfg: elide_off_record(cs, enabled=True, off_phrases=cfg.off_phrases, on_phrases=cfg.on_phrases),
    ),
    Step("cross_device_off_record", lambda cs, cfg: [elide_windows(c, cfg.elided_elsewhere) for c in cs]),
    Step("cleanup", lambda cs, cfg: cleanup(cs)),
    Step("redaction", redact_conversations),
    Step("corrections", lambda cs, cfg: correct_conversations(cs, cfg.corrections)),
    Step("final_redaction", redact_conversations),
    Step("speakers", label_speakers),
    Step("forget", forget_people),
]


def run_pipeline(convos: list[Convo], cfg: PipelineConfig) -> list[Convo]:
    """Run every step in order; conversations left without any utterance are dropped."""
    for step in STEPS:
        if step.able_to_run(cfg):
            convos = step.run(convos, cfg)
    return [c for c in convos if c.turns]


def from_raw(raw) -> Convo:
    """A connector's ``RawConversation`` as pipeline input (text is still raw: do not log it)."""
    turns = [
        Turn(
            text=u.text or "",
            speaker_label=str(u.speaker_label or ""),
            speaker_name=u.speaker_name or "",
            is_wearer=u.is_wearer,
            person_id=u.person_id,
            started_at=u.started_at,
            ended_at=u.ended_at,
            provider_is_wearer=u.is_wearer,
            provider_speaker_name=u.speaker_name or "",
        )
        for u in raw.utterances
    ]
    return Convo(
        source=raw.source,
        external_id=str(raw.external_id),
        started_at=raw.started_at,
        ended_at=raw.ended_at,
        title=raw.title or "",
        turns=turns,
    )
