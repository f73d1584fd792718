"""HTML form validation for review posts (the API validates the same fields with ninja schemas)."""

from __future__ import annotations

from django import forms

from review.models import ReviewPreference
from review.queries import Band


class ActionForm(forms.Form):
    action = forms.CharField(max_length=20)
    edit = forms.CharField(required=False, max_length=2000, strip=True)
    subject = forms.CharField(required=False, max_length=200, strip=True)
    merge_into = forms.CharField(required=False, max_length=64)
    snooze_until = forms.DateField(required=False)


class FilterForm(forms.Form):
    band = forms.ChoiceField(choices=[(b, Band.LABELS[b]) for b in Band.ALL], required=False)
    source = forms.CharField(required=False, max_length=200)
    subject = forms.CharField(required=False, max_length=64)
    cursor = forms.CharField(required=False, max_length=400)
    all = forms.BooleanField(required=False)

    def filters(self) -> dict:
        data = self.cleaned_data if self.is_valid() else {}
        return {
            "band": data.get("band") or Band.QUEUE,
            "source": data.get("source") or None,
            "subject": data.get("subject") or None,
            "cursor": data.get("cursor") or None,
            "show_all": bool(data.get("all")),
        }


class BulkForm(forms.Form):
    band = forms.ChoiceField(choices=[(b, Band.LABELS[b]) for b in Band.ALL])
    action = forms.CharField(max_length=20)
    source = forms.CharField(required=False, max_length=200)
    subject = forms.CharField(required=False, max_length=64)
    expected = forms.IntegerField(min_value=0)


class BudgetForm(forms.ModelForm):
    daily_budget = forms.IntegerField(min_value=1, max_value=500)

    class Meta:
        model = ReviewPreference
        fields = ["daily_budget"]
