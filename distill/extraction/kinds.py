"""What a claim is about (its kind) and how much it matters, from the parse: the predicate's lemma, its
complement's lemma, the subject's relation word and the entity labels the parser found.

The groups below are small semantic fields of everyday English (kinship terms, verbs of residence, verbs of
liking, verbs of employment, words of medical care), plus English derivational morphology (agent nouns in
-er/-or/-ist/-ian name occupations; -itis, -osis, -emia, -ectomy, -oma name conditions and procedures). They are
meant to be complete for their field, not to hold any sentence of a development file; a claim outside every
field is kind "other" and the trained model still scores it.
"""

from __future__ import annotations

import re

KIN = {
    "mother", "mom", "mum", "mama", "father", "dad", "papa", "parent", "sister", "brother", "sibling", "son",
    "daughter", "child", "kid", "baby", "wife", "husband", "spouse", "partner", "boyfriend", "girlfriend",
    "fiance", "fiancé", "fiancee", "fiancée", "cousin", "aunt", "uncle", "niece", "nephew", "grandmother",
    "grandfather", "grandma", "grandpa", "grandparent", "grandson", "granddaughter", "grandchild", "twin",
    "stepmother", "stepfather", "stepson", "stepdaughter", "in-law", "friend", "roommate", "flatmate", "neighbor",
    "neighbour", "godmother", "godfather", "ex",
}  # fmt: skip
RELATION_VERBS = {"marry", "divorce", "date", "engage", "separate", "adopt", "wed", "propose"}
HEALTH_WORDS = {
    "allergic", "allergy", "sick", "ill", "illness", "pregnant", "pregnancy", "diabetic", "diabetes", "asthma",
    "asthmatic", "injured", "injury", "sore", "pain", "anemic", "anaemic", "cancer", "disease", "disorder",
    "syndrome", "infection", "fever", "flu", "virus", "symptom", "diagnosis", "diagnose", "surgery", "operation",
    "hospital", "clinic", "medication", "medicine", "prescription", "prescribe",
    "pill", "dose", "therapy", "therapist", "treatment", "test", "scan", "x-ray", "mri", "blood", "pressure",
    "cholesterol", "level", "result", "sprain", "fracture", "break", "broken", "recover", "recovery", "heal",
    "migraine", "headache", "insomnia", "depression", "anxiety", "cast", "stitches", "vaccine", "shot", "allergen",
    "intolerant", "intolerance", "deficient", "deficiency", "vitamin", "iron", "sugar", "insulin", "chemo",
    "appointment", "physio", "rehab", "sober", "medical", "knee", "ankle", "hip", "back", "shoulder", "wrist",
    "elbow", "tooth", "teeth", "eye", "ear", "spine", "lung", "heart", "kidney", "liver", "skin", "bone", "muscle",
}  # fmt: skip
HEALTH_MORPHOLOGY = re.compile(r"(?:itis|osis|emia|aemia|ectomy|otomy|oscopy|oma|algia|pathy|plasty|penia)$")
# Results of a test or measurement: "came back low", "was positive", "is elevated".
RESULT_WORDS = {"low", "high", "normal", "positive", "negative", "elevated", "clear", "borderline", "abnormal"}
WORK_VERBS = {"work", "hire", "fire", "employ", "promote", "retire", "intern", "freelance", "manage", "lead", "teach",
              "resign", "lay", "quit", "commute", "consult", "found", "run", "own", "apply", "interview", "volunteer"}  # fmt: skip
WORK_WORDS = {
    "job", "career", "office", "boss", "colleague", "coworker", "company", "firm", "startup", "business", "shift",
    "client", "team", "salary", "promotion", "contract", "employer", "manager", "profession", "position", "role",
    "department", "project", "deadline", "meeting", "internship", "degree", "school", "university", "college",
    "student", "class", "course", "thesis", "phd", "mba", "major", "lab", "practice", "studio", "shop", "store",
}  # fmt: skip
AGENT_NOUN = re.compile(
    r"(?:er|or|ist|ian|ant|ent|eer|ive|ic|ess|eon|ista|wife|man|woman|smith|wright)$"
    r"|^(?:nurse|chef|pilot|cook|clerk|judge|coach|guide|vet|nanny|priest|poet|model|medic|midwife|barista|"
    r"carpenter|mason|welder|plumber|roofer|tiler|farmer)$"
)
NOT_OCCUPATIONS = {"person", "fan", "mother", "father", "sister", "brother", "member", "winner", "loser", "beginner",
                   "other", "owner", "lover", "parent", "friend", "partner", "user", "customer", "number", "player"}  # fmt: skip
PLACE_VERBS = {"live", "move", "relocate", "settle", "reside", "stay", "rent", "lease", "buy", "sell", "grow"}
PLACE_WORDS = {"apartment", "flat", "house", "home", "condo", "neighborhood", "neighbourhood", "lease", "rent",
               "landlord", "building", "street", "town", "city", "village", "country", "suburb", "place"}  # fmt: skip
LIKE_VERBS = {"love", "like", "hate", "prefer", "enjoy", "adore", "dislike", "detest", "loathe", "fancy", "miss",
              "crave", "despise", "avoid", "eat", "drink", "play", "collect", "watch", "read", "listen"}  # fmt: skip
TASTE_WORDS = {"favorite", "favourite", "vegan", "vegetarian", "pescatarian", "fan", "obsessed", "addicted",
               "into", "allergic", "keen", "fond", "teetotal"}  # fmt: skip
IDENTITY_WORDS = {"born", "name", "old", "age", "birthday", "nationality", "citizen", "native", "religion"}
DECISION_VERBS = {"decide", "choose", "pick", "settle", "agree", "opt", "commit", "resolve", "determine"}
PLAN_VERBS = {"plan", "book", "schedule", "register", "sign", "reserve", "arrange", "organize", "organise",
              "visit", "travel", "fly", "leave", "start", "begin", "launch", "attend", "host", "throw", "train"}  # fmt: skip

IMPORTANCE = {
    "health": "high",
    "identity": "high",
    "relationship": "normal",
    "work": "normal",
    "place": "normal",
    "preference": "normal",
    "plan": "normal",
    "commitment": "normal",
    "decision": "normal",
    "other": "low",
}


def classify(features: dict, *, subject_relation: str = "") -> tuple[str, str]:
    """(kind, importance) of one claim from its parse features."""
    verb = features.get("verb_lemma", "")
    obj = features.get("object_head_lemma", "")
    words = set(features.get("words") or ())
    predicate = features.get("predicate", "")
    kind = _kind(verb, obj, words, predicate, features, subject_relation)
    return kind, IMPORTANCE[kind]


def _kind(verb, obj, words, predicate, f, relation) -> str:
    if verb == "be" and obj and f.get("object_pos") == "NOUN" and AGENT_NOUN.search(obj) and obj not in NOT_OCCUPATIONS:
        return "work"  # "I'm a welder", "she's an anaesthetist", "you're a nurse"
    if words & HEALTH_WORDS - {
        "back",
        "test",
        "level",
        "result",
        "shot",
        "break",
        "cast",
        "iron",
        "sugar",
        "heart",
    }:
        return "health"
    if obj in RESULT_WORDS and (relation or f.get("particle") == "back" or verb in ("be", "come", "test")):
        return "health"  # a measurement of the speaker's: "my ferritin came back low"
    if verb in ("bear",) or words & IDENTITY_WORDS and verb in ("be", "bear", "turn", "call", "name"):
        return "identity"
    if predicate.startswith("be from") or (verb == "grow" and f.get("particle") == "up"):
        return "identity"
    if verb in RELATION_VERBS or relation in KIN or (verb in ("have", "be") and obj in KIN):
        return "relationship"
    if verb in DECISION_VERBS or f.get("modality") == "decided":
        return "decision"
    if verb in ("live", "move", "relocate", "settle", "reside") or (words & PLACE_WORDS and verb in PLACE_VERBS):
        return "place"
    if verb in WORK_VERBS and (words & WORK_WORDS or f.get("has_org") or f.get("preposition") in ("at", "for", "as")):
        return "work"
    if verb == "be" and obj and f.get("object_pos") == "NOUN" and AGENT_NOUN.search(obj) and obj not in NOT_OCCUPATIONS:
        return "work"  # "I'm a welder", "she's an anaesthetist"
    if obj in WORK_WORDS and verb in ("have", "get", "start", "lose", "quit", "leave", "take", "do", "love", "hate"):
        return "work"
    # After residence and work: a place name can end like a condition ("Tacoma", "Sonoma", "Oklahoma").
    if any(HEALTH_MORPHOLOGY.search(w) for w in words if len(w) > 5):
        return "health"
    if (
        verb in LIKE_VERBS - {"eat", "drink", "play", "collect", "watch", "read", "listen"}
        or obj in TASTE_WORDS
        or words & {"favorite", "favourite"}
    ):
        return "preference"
    if f.get("negated") and verb in ("eat", "drink"):
        return "preference"  # "I don't eat pork"
    if (
        f.get("tense") == "future"
        or f.get("modality") in ("will", "want")
        or (f.get("aspect") == "progressive" and f.get("has_date"))
    ):
        if f.get("grammatical_person") == "first" and "you" in words and f.get("modality") == "will":
            return "commitment"
        if f.get("has_date") or verb in PLAN_VERBS:
            return "plan"
    if verb in PLAN_VERBS and f.get("has_date"):
        return "plan"
    return "other"
