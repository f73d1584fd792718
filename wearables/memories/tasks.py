"""Memory tasks: thin wrappers that take ids, reload rows and call one service."""

from __future__ import annotations

from wearables.memories import services
from wearables.models import DayTranscript


def run_memory_pass(transcript_id: int) -> None:
    """Enqueued by sync after a day transcript is written or changed."""
    transcript = DayTranscript.objects.select_related("source", "owner").filter(pk=transcript_id).first()
    if transcript is None:
        return
    services.run_memory_pass(transcript=transcript)


def import_native_memories(source_id: int, memory_ids: list[int]) -> None:
    """Import stored ``NativeMemoryImport`` rows of one source through the trust pipeline."""
    from wearables.models import NativeMemoryImport

    rows = list(NativeMemoryImport.objects.filter(source_id=source_id, pk__in=memory_ids))
    if rows:
        services.import_native_memories(source_id, rows)
