"""Value tokens: the parts of a claim that are compared as values, not as similar words.

``scan(text)`` splits text into lowercase tokens and says which ones are values:

- numbers however written ("twelve", "12", "twenty-five", "1,200", "3rd", "the third") become canonical digits
  (number words through ``text2num``), so "twelve years" and "12 years" are the same value;
- times ("3 pm", "15:00", "noon") become 24-hour ``H:MM``; months and weekdays are date values;
- currency symbols and words ("$", "dollars", "€", "euros") become a currency value next to the amount;
- proper nouns (places, people, organisations) are found by capitalisation (a capitalised word that does not
  open a sentence, an all-capitals acronym, or an opening word the caller does not consider common) or because
  the caller knows the name (``names``: the owner's entities).

Kinds: ``n`` (number, time, date, amount), ``p`` (proper noun), ``w`` (any other word). Pure: no Django.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from text_to_num import alpha2digit  # number words in English ("twenty-five" -> "25")

NUMBER, NAME, WORD = "n", "p", "w"

MONTHS = {
    "january": "january", "jan": "january", "february": "february", "feb": "february", "march": "march",
    "mar": "march", "april": "april", "apr": "april", "may": "may", "june": "june", "jun": "june",
    "july": "july", "jul": "july", "august": "august", "aug": "august", "september": "september",
    "sep": "september", "sept": "september", "october": "october", "oct": "october", "november": "november",
    "nov": "november", "december": "december", "dec": "december",
}  # fmt: skip
# Month names that are also everyday words count only when capitalised ("may", "march").
AMBIGUOUS_MONTHS = {"may", "march", "mar", "jan", "dec", "sep", "oct", "aug", "jun", "jul", "apr", "nov", "feb"}
WEEKDAYS = {
    "monday": "monday", "mon": "monday", "tuesday": "tuesday", "tue": "tuesday", "tues": "tuesday",
    "wednesday": "wednesday", "wed": "wednesday", "thursday": "thursday", "thu": "thursday", "thurs": "thursday",
    "friday": "friday", "fri": "friday", "saturday": "saturday", "sat": "saturday", "sunday": "sunday",
    "sun": "sunday",
}  # fmt: skip
AMBIGUOUS_WEEKDAYS = {"mon", "tue", "wed", "thu", "fri", "sat", "sun"}
CURRENCY_WORDS = {
    "dollar": "usd", "dollars": "usd", "buck": "usd", "bucks": "usd", "usd": "usd", "euro": "eur", "euros": "eur",
    "eur": "eur", "pound": "gbp", "pounds": "gbp", "quid": "gbp", "gbp": "gbp", "sterling": "gbp", "yen": "jpy",
    "jpy": "jpy", "franc": "chf", "francs": "chf", "chf": "chf", "rupee": "inr", "rupees": "inr", "inr": "inr",
    "cent": "cent", "cents": "cent", "pence": "pence", "penny": "pence", "peso": "peso", "pesos": "peso",
    "krona": "krona", "kronor": "krona", "krone": "krone", "kroner": "krone",
}  # fmt: skip
CURRENCY_SYMBOLS = {"$": "usd", "€": "eur", "£": "gbp", "¥": "jpy", "₹": "inr"}
NAMED_TIMES = {"noon": "12:00", "midday": "12:00", "midnight": "0:00"}

_SYMBOL_AMOUNT = re.compile(r"([$€£¥₹])\s?(\d[\d,]*(?:\.\d+)?)")
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}\b)")
_TOKEN = re.compile(r"\d+(?:[.:]\d+)*(?:st|nd|rd|th|am|pm)?|[^\W\d_]+(?:'[^\W\d_]+)?|[.!?;:\n]")
_ORDINAL = re.compile(r"^(\d+)(st|nd|rd|th)$")
_SPLIT_YEAR = re.compile(r"\b(1[0-9]|20) ([0-9]{2})\b")


@dataclass(frozen=True)
class Token:
    text: str  # lowercase, accents folded; canonical form for values
    kind: str  # n | p | w
    opens_sentence: bool = False


def _fold(text: str) -> str:
    text = unicodedata.normalize("NFKD", text or "")
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    return text.replace("\u2019", "'").replace("\u2018", "'")


def digits_for_words(text: str) -> str:
    """Number words written as digits ("twelve years" -> "12 years", "the third" -> "the 3rd")."""
    if not text:
        return text
    try:
        out = alpha2digit(text, "en", threshold=0)
    except Exception:  # a library edge case must never break admission
        return text
    if out != text:
        # "nineteen eighty four" comes back as "19 84": a spoken year.
        spoken_years = {m.group(0) for m in _SPLIT_YEAR.finditer(out)} - {
            m.group(0) for m in _SPLIT_YEAR.finditer(text)
        }
        for pair in spoken_years:
            out = out.replace(pair, pair.replace(" ", ""))
    return out


def _canonical_number(tok: str) -> str:
    if ":" in tok:
        hours, _, minutes = tok.partition(":")
        return f"{int(hours)}:{minutes}" if hours.isdigit() else tok
    if "." in tok:
        whole, _, frac = tok.partition(".")
        frac = frac.rstrip("0")
        return f"{int(whole) if whole.isdigit() else whole}{'.' + frac if frac else ''}"
    return str(int(tok)) if tok.isdigit() else tok


def _clock(number: str, meridiem: str) -> str:
    hours, _, minutes = number.partition(":")
    if not hours.isdigit():
        return number
    h = int(hours) % 12 + (12 if meridiem == "pm" else 0)
    return f"{h}:{minutes or '00'}"


def scan(text: str, *, names: Iterable[str] = (), is_common: Callable[[str], bool] | None = None) -> list[Token]:
    """Tokens of ``text`` with their kinds (see the module docstring).

    ``names``: lowercase name words known to be proper nouns even when written in lower case.
    ``is_common(word)``: True for an everyday word; a capitalised sentence opener counts as a proper noun only
    when this says it is not common (default: every opener is common, i.e. not a name).
    """
    known = set(names)
    text = _fold(text)
    text = _SYMBOL_AMOUNT.sub(lambda m: f"{m.group(2)} {CURRENCY_SYMBOLS[m.group(1)]}", text)
    text = _THOUSANDS.sub("", text)
    text = digits_for_words(text)
    raw = _TOKEN.findall(text)
    out: list[Token] = []
    opens = True
    i = 0
    while i < len(raw):
        tok = raw[i]
        i += 1
        if tok in ".!?;:\n":
            opens = True
            continue
        low = tok.lower()
        first, opens = opens, False
        if low[0].isdigit():
            m = _ORDINAL.match(low)
            if m:
                out.append(Token(str(int(m.group(1))), NUMBER, first))
                continue
            if low.endswith(("am", "pm")):
                out.append(Token(_clock(low[:-2], low[-2:]), NUMBER, first))
                continue
            nxt = raw[i].lower().replace(".", "") if i < len(raw) else ""
            if nxt in ("am", "pm") or (nxt in ("a", "p") and i + 1 < len(raw) and raw[i + 1].lower() == "m"):
                out.append(Token(_clock(low, nxt[0] + "m"), NUMBER, first))
                i += 1 if nxt in ("am", "pm") else 2
                continue
            out.append(Token(_canonical_number(low), NUMBER, first))
            continue
        low = low.replace("'", "")
        capital = tok[0].isupper()
        if low in NAMED_TIMES:
            out.append(Token(NAMED_TIMES[low], NUMBER, first))
        elif low in MONTHS and (capital or low not in AMBIGUOUS_MONTHS):
            out.append(Token(MONTHS[low], NUMBER, first))
        elif low in WEEKDAYS and (capital or low not in AMBIGUOUS_WEEKDAYS):
            out.append(Token(WEEKDAYS[low], NUMBER, first))
        elif low in CURRENCY_WORDS or low in CURRENCY_SYMBOLS.values():
            out.append(Token(CURRENCY_WORDS.get(low, low), NUMBER, first))
        elif low in known:
            out.append(Token(low, NAME, first))
        elif capital and len(tok) > 1 and (tok.isupper() or not first or (is_common and not is_common(low))):
            out.append(Token(low, NAME, first))
        else:
            out.append(Token(low, WORD, first))
    return out


def values(text: str, **kw) -> set[str]:
    """The value tokens of ``text`` (numbers, times, dates, amounts, proper nouns), canonical and lowercase."""
    return {t.text for t in scan(text, **kw) if t.kind != WORD}


# A statement that something changed: the only evidence that may bring a rejected claim back (to review).
_CHANGE = re.compile(
    r"\b(?:now|nowadays|these days|any ?more|no longer|not any longer|instead|from now on|used to|"
    r"start(?:ed|ing|s)?|began|begun|begin(?:ning|s)?|switch(?:ed|ing)?|chang(?:ed|ing)|"
    r"moved (?:to|into|in|out|back)|quit|stopped|gave up|took up|taken up|recently|lately|"
    r"as of|since (?:then|last|early|late|\d+|(?-i:[A-Z][a-z]+))|(?:starting|from) (?:next|this|on|in|\d+|(?-i:[A-Z][a-z]+))|"
    r"became|become|turned into|got (?:a new|married|divorced|engaged)|changed (?:my|her|his|their) mind)\b",
    re.IGNORECASE,
)


def states_change(text: str) -> bool:
    """Does ``text`` say something changed ("I started…", "now…", "no longer", "since March", "switched to")?"""
    return bool(_CHANGE.search(_fold(text or "")))


def change_cues(text: str) -> list[str]:
    """The change statements in ``text`` ("started", "no longer", "since March"), in order."""
    return [m.group(0) for m in _CHANGE.finditer(_fold(text or ""))]
