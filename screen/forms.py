"""HTML forms of the Timeline page."""

from __future__ import annotations

from django import forms

from screen.models import ScreenEvent
from screen.services import CORRECTIONS


class FilterForm(forms.Form):
    date = forms.DateField(required=False, widget=forms.DateInput(attrs={"type": "date"}))
    type = forms.CharField(required=False, max_length=100)
    status = forms.ChoiceField(required=False, choices=[("", "any status")] + list(ScreenEvent.Status.choices))


class CorrectForm(forms.Form):
    action = forms.ChoiceField(choices=[(c, c) for c in CORRECTIONS])
    title = forms.CharField(required=False, max_length=200)

    def clean(self):
        data = super().clean()
        if data.get("action") == "rename" and not (data.get("title") or "").strip():
            self.add_error("title", "Give the new title.")
        return data


class SourceForm(forms.Form):
    enabled = forms.BooleanField(required=False)
    base_url = forms.URLField(required=False, max_length=300, assume_scheme="http")
    backfill_days = forms.IntegerField(min_value=0, max_value=30)
    frame_budget = forms.IntegerField(min_value=0, max_value=500)


class PreferenceForm(forms.Form):
    text = forms.CharField(max_length=200, strip=True)
