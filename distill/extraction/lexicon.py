"""Closed word classes of English the parse-based extractor uses: personal pronouns, modal auxiliaries and
control verbs, epistemic hedges, verbs of saying and thinking, conditional subordinators, positive evaluatives and
irony pairs (sarcasm cues), verb particles, and the spaCy entity labels grouped by use. Grammatical categories,
not phrases from any development file.
"""

from __future__ import annotations

FIRST = {"i", "me", "my", "mine", "myself"}
FIRST_PLURAL = {"we", "us", "our", "ours", "ourselves"}
SECOND = {"you", "your", "yours", "yourself", "u", "ya"}
# A possessive pronoun standing for its noun ("Mine was the same", "Hers is in Leeds"): what is owned is left out
STANDALONE_POSSESSIVES = {"mine", "yours", "his", "hers", "ours", "theirs"}
# English kinship and relation nouns, with the gender the word itself carries ("" when it carries none).
KIN_GENDER = {"mother": "f", "mom": "f", "mum": "f", "sister": "f", "wife": "f", "daughter": "f", "aunt": "f",
              "niece": "f", "grandmother": "f", "grandma": "f", "girlfriend": "f", "father": "m", "dad": "m",
              "brother": "m", "husband": "m", "son": "m", "uncle": "m", "nephew": "m", "grandfather": "m",
              "grandpa": "m", "boyfriend": "m", "partner": "", "cousin": "", "friend": "", "boss": "",
              "roommate": "", "neighbour": "", "neighbor": "", "colleague": "", "flatmate": ""}  # fmt: skip
THIRD_PRONOUNS = {"he", "she", "him", "her"}  # "they" is mostly plural or generic: never resolved to one person
SUBJECT_DEPS = {"nsubj", "nsubjpass", "csubj", "expl"}
OBJECT_DEPS = ("dobj", "attr", "acomp", "oprd", "xcomp", "ccomp", "dative", "npadvmod")

# Modal auxiliaries (Penn tag MD) and the semi-modal control verbs whose complement is the real predicate.
MODAL_AUX = {
    "can": "can",
    "could": "could",
    "will": "will",
    "'ll": "will",
    "wo": "will",
    "would": "would",
    "'d": "would",
    "shall": "will",
    "should": "should",
    "may": "might",
    "might": "might",
    "must": "must",
    "ca": "can",
}
CONTROL_VERBS = {
    "want": "want",
    "need": "need",
    "have": "need",  # "have to"
    "plan": "will",
    "go": "will",  # "going to"
    "hope": "want",
    "try": "want",
    "wish": "wish",
    "intend": "will",
    "mean": "will",
    "decide": "decided",
    "gonna": "will",
    "wanna": "want",
    "gotta": "need",
    "use": "used_to",
    "start": "start",
    "begin": "start",
    "stop": "stop",
    "quit": "stop",
    "keep": "keep",
    "expect": "will",
    "consider": "might",
}
# Epistemic adverbs and verbs that weaken a statement (a closed class of English hedges).
HEDGE_ADVERBS = {"maybe", "perhaps", "probably", "possibly", "apparently", "supposedly", "kinda", "sorta", "hopefully"}
HEDGE_VERBS = {"think", "guess", "suppose", "believe", "feel", "reckon", "assume", "imagine", "doubt", "wonder"}
SAY_VERBS = {"say", "tell", "claim", "mention", "announce", "write", "text", "post", "report", "insist", "joke"}
HYPOTHETICAL_HEADS = {"wish", "imagine", "pretend", "suppose", "dream", "fantasize", "fantasise"}
CONDITION_MARKS = {"if", "unless", "whether", "assuming", "provided", "suppose", "supposing", "lest"}
# Temporal subordinators: a clause they open before the main verb frames the claim ("Since we last spoke, …").
FRAME_MARKS = {"since", "after", "before", "once", "while", "when", "whenever", "until", "till", "as"}
# Coordinators that start a comment on the claim rather than another part of it ("…, so no cashews at all").
COMMENT_CONJUNCTIONS = {"so", "but", "yet"}
INTENSIFIERS = {"totally", "literally", "basically", "officially", "absolutely", "completely", "so", "super", "such"}
POSITIVE_EVALUATIVES = {
    "great",
    "wonderful",
    "fantastic",
    "perfect",
    "awesome",
    "lovely",
    "brilliant",
    "terrific",
    "nice",
    "super",
    "excellent",
    "marvellous",
    "marvelous",
    "fabulous",
    "splendid",
    "amazing",
}
IRONY_MARKERS = {("yeah", "right"), ("oh", "sure"), ("sure", "sure"), ("oh", "great"), ("oh", "joy")}
# Discourse adverbs that open a clause without adding to it.
LEADING_DISCOURSE = {"so", "well", "oh", "yeah", "okay", "ok", "anyway", "also", "plus", "actually", "honestly",
                     "basically", "anyways", "like", "now", "and", "but", "then"}  # fmt: skip
# Sentence adverbs of comment: after a comma at a clause's end they frame it ("…, actually") and are not part of it.
SENTENCE_ADVERBS = {"actually", "honestly", "anyway", "anyways", "basically", "frankly", "seriously", "though"}
# Discourse markers of more than one word (English grammars list them with "anyway", "actually"): set off by a
# comma before the subject they frame the claim and are not part of it ("By the way, I've started swimming").
DISCOURSE_PHRASES = {("by", "the", "way"), ("in", "fact"), ("of", "course"), ("to", "be", "honest"),
                     ("to", "be", "fair"), ("in", "any", "case"), ("as", "it", "happens"), ("on", "top", "of", "that"),
                     ("in", "other", "words"), ("at", "the", "end", "of", "the", "day")}  # fmt: skip
CONFIRMATION_TAGS = {"right", "remember", "yeah", "ok", "okay", "see", "huh", "no", "correct", "yes", "know", "you"}
LAUGHTER = {"ha", "haha", "hah", "hahaha", "lol", "lmao", "rofl", "hehe"}
SUPERLATIVE_FRAMES = {"ever", "world", "history", "life"}
HYPERBOLE_NUMBERS = {"million", "billion", "trillion", "zillion", "gazillion", "bazillion"}
PARTICLES = {"back", "up", "out", "off", "down", "over", "away", "in", "through", "around", "along", "on"}
DATE_LABELS = {"DATE", "TIME"}
QUANTITY_LABELS = {"QUANTITY", "CARDINAL", "MONEY", "PERCENT", "ORDINAL"}
PLACE_LABELS = {"GPE", "LOC", "FAC"}
# Verbs of violence or extremity said of oneself are usually figurative ("this commute is killing me").
HYPERBOLE_VERBS = {
    "kill",
    "murder",
    "destroy",
    "torture",
    "drown",
    "crush",
    "die",
    "starve",
    "freeze",
    "melt",
    "explode",
}
MOMENT_ADVERBS = {"just", "now", "currently", "quick", "quickly", "real", "right", "already", "still"}
NEAR_TERM_WORDS = {"today", "tonight", "tomorrow", "morning", "afternoon", "evening", "minute", "minutes",
                   "hour", "hours", "later", "soon", "sec", "second"}  # fmt: skip
VAGUE_WORDS = {"it", "that", "this", "them", "those", "these", "one", "ones", "something", "anything", "everything",
               "nothing", "stuff", "thing", "things"}  # fmt: skip
