from __future__ import annotations

from django import forms

from chats.importers import FORMATS

MAX_UPLOAD = 50 * 1024 * 1024


class UploadForm(forms.Form):
    format = forms.ChoiceField(choices=[(k, k) for k in FORMATS])
    file = forms.FileField()

    def clean_file(self):
        f = self.cleaned_data["file"]
        if f.size > MAX_UPLOAD:
            raise forms.ValidationError(f"The file is larger than {MAX_UPLOAD // (1024 * 1024)} MB.")
        return f
