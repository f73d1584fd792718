"""HTML forms of the Memory pages (JSON input goes through ledger.schemas)."""

from __future__ import annotations

from django import forms


class LiftRefusalForm(forms.Form):
    reason = forms.CharField(max_length=200, required=False)


class ForgetPersonForm(forms.Form):
    confirm = forms.BooleanField(
        required=True, error_messages={"required": "Tick the box to confirm: forgetting cannot be undone."}
    )
