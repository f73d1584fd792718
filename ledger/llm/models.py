"""The bounded-cost counter and per-call-type figures of the LLM path, per owner and owner-local day.

Counted in the database, never in a cache: a cache entry expires (the database cache rewrote the counter with its
default 300 s lifetime, so the daily cap reset five minutes after a burst) and is per process for local memory.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from ledger.llm.config import CallType


class DailyBudget(models.Model):
    """Model calls made for one owner on one of the owner's local days, all call types together (the cap).

    Incremented only by ``usage.take_call`` with a conditional ``UPDATE … WHERE calls < cap`` (race-free)."""

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.CASCADE, related_name="+")
    day = models.DateField()
    calls = models.PositiveIntegerField(default=0)
    refused = models.PositiveIntegerField(default=0, help_text="calls refused because the cap was reached")

    class Meta:
        constraints = [
            # One counter per owner-day; calls without an owner (none today) share one row per day.
            models.UniqueConstraint(fields=["owner", "day"], name="llm_dailybudget_one_per_owner_day",
                                    nulls_distinct=False),
        ]  # fmt: skip

    def __str__(self) -> str:
        return f"{self.owner_id}:{self.day} {self.calls} calls"


class CallStat(models.Model):
    """Figures per owner, local day and call type, for the Settings page and the bench."""

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.CASCADE, related_name="+")
    day = models.DateField()
    call_type = models.CharField(max_length=20, choices=CallType.choices)
    calls = models.PositiveIntegerField(default=0, help_text="requests sent to the model")
    valid = models.PositiveIntegerField(default=0, help_text="answers that passed the schema")
    fallbacks = models.PositiveIntegerField(default=0, help_text="times the deterministic path ran instead")
    latency_ms = models.PositiveBigIntegerField(default=0, help_text="sum over calls, for the average")
    tokens = models.PositiveBigIntegerField(default=0, help_text="prompt + completion tokens reported or estimated")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["owner", "day", "call_type"], name="llm_callstat_one_per_owner_day_type",
                                    nulls_distinct=False),
        ]  # fmt: skip

    def __str__(self) -> str:
        return f"{self.owner_id}:{self.day}:{self.call_type}"

    @property
    def average_latency_ms(self) -> int:
        return round(self.latency_ms / self.calls) if self.calls else 0
