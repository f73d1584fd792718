"""The project's one lexicon: normalising, words, stopwords, stemming and claim-key folding.

Used by the ledger's refusal and proposition keys (``ledger.hashing``), recall (``ledger.recall.lexical``: BM25,
hash embeddings, consolidation) and the trust gate (``distill.trust``: claim tokens, coverage). Pure: no
database, no Django.

Two stemmers, on purpose, and only two:
- ``stem``: the Snowball English stemmer ("painting"/"painted"/"paints" -> "paint"). For matching that is
  recomputed on both sides every time (search, coverage, support), so it may improve freely.
- ``key_stem``: the folding inside STORED keys (refusal token signatures, text keys, proposition keys). A
  refusal must keep matching the claim it refused for as long as it lives, so this folding is frozen at
  ``KEY_VERSION``. Changing it means a new version: add ``key_stem_v2``, store new keys with it and keep
  matching stored refusals with the version they were made under (see ``tests/ledger/test_text_keys.py``).
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

import snowballstemmer

KEY_VERSION = 1

_TOKEN_RE = re.compile(r"[0-9]+(?:[.:][0-9]+)*|[^\W\d_]+", re.UNICODE)
_WORD_RE = re.compile(r"[A-Za-z0-9]+(?:['’][A-Za-z]+)?")


def normalize_text(text: str) -> str:
    """Lowercase, accents folded, apostrophes and punctuation dropped, whitespace collapsed."""
    text = unicodedata.normalize("NFKD", text or "")
    text = "".join(ch for ch in text if not unicodedata.combining(ch)).lower()
    text = text.replace("'", "").replace("\u2019", "")
    return " ".join(_TOKEN_RE.findall(text))


def words(text: str) -> list[str]:
    """Lower-cased words (apostrophe contractions kept together, curly quotes normalised)."""
    return [w.replace("’", "'") for w in _WORD_RE.findall((text or "").lower())]


_SNOWBALL = snowballstemmer.stemmer("english")


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """Snowball English stem of one lower-case word (apostrophes dropped): "studies"/"studying" -> "studi"."""
    w = (word or "").lower().replace("'", "").replace("’", "")
    if len(w) <= 3 or not w.isalpha():
        return w
    return _SNOWBALL.stemWord(w)


def claim_stem(word: str) -> str:
    """A coarse stem for comparing two claims' words: the Snowball stem cut to five letters, so derived forms
    compare equal ("allergic"/"allergy", "works"/"work", "moved"/"move")."""
    return stem(word)[:5]


# --- Stopwords ---------------------------------------------------------------------------------------
# The project's one list of function words (general English, not taken from any development file): words that
# carry no topic. Recall drops them from queries and from the BM25 floor's terms; the other users (chats,
# screen, speakers, the trust gate) derive their lists from this one and say why theirs differ.
STOPWORDS = frozenset(
    """
    a about above after again against all am an and any are aren't as at be because been before being below between
    both but by can can't cannot could couldn't did didn't do does doesn't doing don't down during each few for from
    further had hadn't has hasn't have haven't having he he'd he'll he's her here here's hers herself him himself his
    how how's i i'd i'll i'm i've if in into is isn't it it's its itself let's me more most mustn't my myself no nor
    not of off on once only or other ought our ours ourselves out over own same shan't she she'd she'll she's should
    shouldn't so some such than that that's the their theirs them themselves then there there's these they they'd
    they'll they're they've this those through to too under until up very was wasn't we we'd we'll we're we've were
    weren't what what's when when's where where's which while who who's whom why why's with won't would wouldn't you
    you'd you'll you're you've your yours yourself yourselves also just like get got really would will shall may
    might must s t d ll ve re m
    """.split()
)


# --- Key folding (frozen at KEY_VERSION; see the module docstring) --------------------------------------
# Words left out of stored claim keys (``ledger.hashing``). Part of the frozen key format, so NOT derived from
# STOPWORDS: a change to either list would silently re-key every stored refusal (pinned by
# tests/ledger/test_text_keys.py).
KEY_STOPWORDS = frozenset(
    """a an the and or but of to in on at for from by with as is are was were be been being am do does did
    has have had having that this these those it its it's there here then than so very really just also
    now currently still too yes he she they them his her their our we us who whom which what when where
    will would shall should can could may might must about into over after before up down out off again
    once some any all each more most other such only own same both few s t d ll m o re ve y said says say
    mentioned told tells tell noted thinks think believe believes apparently actually probably maybe
    kind sort well oh um uh""".split()
)
# Negation changes the claim: every form folds to one kept token.
NEGATIONS = frozenset(
    "not no never nobody none nothing neither nor cannot cant dont doesnt didnt isnt arent wasnt werent wont "
    "wouldnt shouldnt couldnt hasnt havent hadnt aint".split()
)
# Light synonym folding so common paraphrases land on the same token.
SYNONYMS = {
    "resides": "live",
    "reside": "live",
    "residing": "live",
    "resided": "live",
    "lives": "live",
    "living": "live",
    "lived": "live",
    "home": "live",
    "based": "live",
    "stays": "live",
    "stay": "live",
    "works": "work",
    "working": "work",
    "worked": "work",
    "employed": "work",
    "job": "work",
    "employer": "work",
    "likes": "like",
    "loves": "like",
    "love": "like",
    "enjoys": "like",
    "enjoy": "like",
    "fond": "like",
    "prefers": "prefer",
    "preferred": "prefer",
    "favorite": "prefer",
    "favourite": "prefer",
    "dislikes": "dislike",
    "hates": "dislike",
    "hate": "dislike",
    "moving": "move",
    "moved": "move",
    "moves": "move",
    "relocating": "move",
    "relocate": "move",
    "married": "spouse",
    "wife": "spouse",
    "husband": "spouse",
    "starting": "start",
    "started": "start",
    "starts": "start",
    "begins": "start",
    "beginning": "start",
    "allergic": "allergy",
    "allergies": "allergy",
    "kids": "child",
    "children": "child",
    "son": "child",
    "daughter": "child",
    "meeting": "meet",
    "meets": "meet",
    "met": "meet",
    "named": "name",
    "called": "name",
    "names": "name",
    "owns": "own",
    "owned": "own",
    "has": "own",
    "plays": "play",
    "playing": "play",
    "played": "play",
    "visits": "visit",
    "visiting": "visit",
    "visited": "visit",
    "going": "go",
    "goes": "go",
    "went": "go",
    "heading": "go",
    "bought": "buy",
    "buys": "buy",
    "purchased": "buy",
    "studies": "study",
    "studying": "study",
    "studied": "study",
}


def key_stem(token: str) -> str:
    """Version-1 folding of one normalised token inside stored keys: negations -> "not", synonyms, then one
    plain suffix (-ing, -ed, -es, -s) off words longer than six letters' worth. Frozen: see the docstring."""
    if token in NEGATIONS:
        return "not"
    if token in SYNONYMS:
        return SYNONYMS[token]
    if token.isdigit() or len(token) <= 3:
        return token
    for suffix in ("ing", "ed", "es", "s"):
        if token.endswith(suffix) and len(token) - len(suffix) >= 3:
            base = token[: -len(suffix)]
            return SYNONYMS.get(base, base)
    return token
