"""What makes a number secret, and what makes it plainly something else: a small lexicon of generic English.

A cue is a word next to a number (or in the question a number answers) that says what kind of number it is.
Secret cues name what unlocks or identifies: codes, PINs, passwords, accounts, cards, ID documents, bank
routing numbers. Plain cues name what does not: prices, times, dates, addresses, phones, flights, quantities.
A few secret words change meaning with their neighbour ("zip code", "security deposit", "birthday card",
"public transit"); those neighbours are listed here too. None of this comes from any recorded day: it is the
vocabulary any English speaker uses for these things. Pure: no Django.
"""

from __future__ import annotations

from accounts.wordforms import lemmas_of  # an English lexicon: which words can only be nouns
from ledger.lexicon import STOPWORDS
from ledger.redaction.numbers import Token, code_letters

SECRET = "secret"
PLAIN = "plain"

# Words that make the number they name a secret (lower case, "'s" stripped).
SECRET_WORDS = frozenset(
    """code codes pin pins passcode passcodes password passwords passwd pwd passphrase passkey combination combo
    account accounts acct card cards visa mastercard amex debit cvv cvc cvn cvv2 csc iban routing transit bsb
    ifsc aba swift bic passport licence license ssn sin ppsn pps nino medicare medicaid aadhaar tin ein itin tfn
    mrn otp id ids identification nhs keypad lockbox padlock""".split()
)
# Words that are secret cues only in a pair: (word, neighbour after) or the pair's first word.
SECRET_PAIRS = {
    ("sort", "code"),
    ("social", "security"),
    ("social", "insurance"),
    ("national", "insurance"),
    ("security", "code"),
    ("security", "number"),
    ("tax", "file"),
    ("health", "card"),
    ("insurance", "number"),
    ("verification", "code"),
    ("access", "code"),
    ("one-time", "code"),
    ("last", "four"),
    ("serial", "key"),
    ("product", "key"),
    ("licence", "key"),
    ("license", "key"),
    ("network", "key"),
    ("identity", "number"),
    ("membership", "number"),
    ("member", "number"),
    ("member", "id"),
    ("patient", "number"),
    ("patient", "id"),
    ("policy", "number"),
    ("customer", "number"),
    ("employee", "number"),
    ("student", "number"),
    ("group", "number"),
    ("health", "number"),
    ("insurance", "id"),
    ("tax", "id"),
    ("national", "id"),
}
# A secret word that a neighbour turns into something else: neighbour before, or after.
NOT_SECRET_BEFORE = {
    "code": frozenset(
        "zip postal post area country promo promotional discount coupon voucher referral dress error status exit qr "
        "bar source course product colour color airport airline flight booking confirmation reference tracking "
        "tax morse cheat dialling dialing".split()
    ),
    "card": frozenset(
        "birthday business report sim memory sd graphics video wild red yellow score greeting post playing "
        "loyalty boarding key rewards library".split()
    ),
    "transit": frozenset("public mass in".split()),  # "in transit": a parcel on its way, not a bank's number
    "visa": frozenset("schengen tourist student work travel business spousal entry transit family work".split()),
    "account": frozenset("instagram twitter facebook email social media netflix spotify youtube".split()),
    "id": frozenset("caller apple".split()),
}
NOT_SECRET_AFTER = {
    "card": frozenset("machine reader terminal game games table trick".split()),
    "security": frozenset("deposit guard guards camera cameras check checks system team clearance line".split()),
    "social": frozenset("media worker workers work life event events club night life".split()),
    "code": frozenset("review reviews base".split()),
    "combination": frozenset("of".split()),
    "account": frozenset("of".split()),
}
# Cues whose number is a secret only while a card is being read out ("the three on the back").
CARD_WORDS = frozenset("card cards visa mastercard amex debit credit".split())
CARD_ONLY_WORDS = frozenset("back digits".split())
PASSWORD_WORDS = frozenset("password passwords passwd pwd passphrase passcode".split())

# Beside a number (at most one word between), these make it a time, date, amount, quantity, place or ordinal.
PLAIN_BESIDE = frozenset(
    """at in on since until till by from around about approximately roughly over under nearly almost than per
    every each after before between like maybe unit units apt apartment suite flat floor level room ward
    bed table seat row aisle gate platform terminal bay pier lot block building house street st road rd avenue
    ave lane ln drive boulevard blvd way court ct place crescent terrace close square highway hwy route parkway
    north south east west northeast northwest southeast southwest page pages chapter verse episode season
    version model size number no no. plus minus times half quarter past am pm noon midnight o'clock oclock
    percent per cent degrees dollars dollar bucks cents euro euros pounds pence quid rupees rs inr usd eur gbp
    cad aud lakh lakhs crore crores grand k kg kgs kilos kilograms grams g lbs ounces oz km kms kilometres
    kilometers miles mile metres meters feet foot inches cm mm litres liters ml mg mcg calories steps reps sets
    minutes minute mins hours hour hrs seconds secs days day weeks week months month years year yrs
    january february march april may june july august september october november december jan feb mar apr jun
    jul aug sep sept oct nov dec monday tuesday wednesday thursday friday saturday sunday""".split()
)
# Anywhere before a number in its sentence (nearest cue wins), or in the question it answers: another kind.
PLAIN_CONTEXT = frozenset(
    """phone phones mobile cell cellphone landline call calls ring text whatsapp fax extension ext tel flight
    flights train bus tram route expiry expiration exp expires born birthday dob price prices cost costs paid
    pay paying pays money cash fare fares fee fees total bill balance rent salary tip owe owed refund worth priced charge charged
    order tracking reference ref invoice ticket booking confirmation reservation score scored marks points
    weigh weighs weight height tall age aged temperature sugar pressure dose dosage address postcode
    zipcode""".split()
)
PLAIN_CONTEXT_IN_QUESTIONS = frozenset(
    """phone mobile cell landline flight order tracking reference booking confirmation reservation expiry
    expiration exp address postcode zipcode price cost much many time when long old far year years month months
    week weeks day days date ago since born""".split()
)

# Words after a code that belong to typing it in, or that close the sentence politely.
KEYPAD_WORDS = frozenset(
    """then pound hash star enter tick key button hashtag asterisk okay ok yeah yes yep right correct perfect
    got thanks thank please sharp exactly lovely great cool alright sorry um uh hmm so and or again too also
    there matches match done noted cheers brilliant ta now today though anyway instead apparently if remember i think yesterday still already
    btw by the way""".split()
)
# Words that may stand before a number that answers a question ("Yes, it's, um, …", "Sure. The new one's …").
ANSWER_FILLERS = (
    frozenset(
        """yes yeah yep yup sure okay ok right so um uh er erm hmm well alright go ahead here hold hang on ready
    got it it's its is that's thats this new one number the my your our his her their like just and then oh ah
    sorry confirm confirmed correct mm actually again read use enter type punch key press try""".split()
    )
    | STOPWORDS
)
SENTENCE_END = frozenset(".?!")


def base(token: Token) -> str:
    """A word as the lexicon spells it: lower case, a trailing "'s" dropped ("code's" -> "code")."""
    w = token.lower
    return w[:-2] if w.endswith("'s") else w


# Nouns that name a number by what stands before them: "account number", "NHS number", "room number".
HEAD_NOUNS = frozenset({"number", "numbers", "no", "num", "digits", "details", "id"})


def word_cue(tokens: list[Token], i: int, *, card_context: bool) -> str | None:
    """SECRET, PLAIN or None for the word at ``i``, its neighbours considered ("zip code" is not a secret; an
    acronym's number, "NHS number", "PPS no.", is an identifier)."""
    t = tokens[i]
    if t.kind != "word":
        return None
    w = base(t)
    before = _word_at(tokens, i, -1)
    after = _word_at(tokens, i, +1)
    if w in HEAD_NOUNS and i > 0 and _acronym(tokens[i - 1]):
        return SECRET
    if (w, after) in SECRET_PAIRS or (before, w) in SECRET_PAIRS:
        return SECRET
    if w in SECRET_WORDS:
        if before in NOT_SECRET_BEFORE.get(w, ()) or after in NOT_SECRET_AFTER.get(w, ()):
            return PLAIN
        if _modifies_a_noun(tokens, i, after):
            return None  # "password manager", "account holder": the word names another thing
        return SECRET
    if w in CARD_ONLY_WORDS and card_context:
        return SECRET
    if w in PLAIN_CONTEXT:
        return PLAIN
    return None


TIMES_OF_DAY = frozenset("morning afternoon evening night tonight tomorrow weekend".split())


def _modifies_a_noun(tokens: list[Token], i: int, after: str) -> bool:
    """Whether the word stands before a noun it modifies (a word that can only be a noun, said right after it)."""
    if not after or after in HEAD_NOUNS or after in SECRET_WORDS or after in CARD_WORDS:
        return False
    if after in ANSWER_FILLERS or after in KEYPAD_WORDS or after in PLAIN_BESIDE or after in TIMES_OF_DAY:
        return False  # "the code this morning", "the PIN again", "the account today"
    if i + 1 >= len(tokens) or tokens[i + 1].kind != "word" or code_letters(tokens, i + 1):
        return False  # "PIN NAY-4821": the letters of the code it names, not a noun ("PIN pad")
    return set(lemmas_of(after)) == {"NOUN"}


def _acronym(token: Token) -> bool:
    """ "NHS", "PPS", "TFN": an all-capitals word of 2-5 letters (not "I", "OK", "TV" said as words of talk)."""
    return (
        token.kind == "word" and 2 <= len(token.text) <= 5 and token.text.isupper() and token.text not in ("OK", "TV")
    )


def _word_at(tokens: list[Token], i: int, step: int) -> str:
    j = i + step
    while 0 <= j < len(tokens) and tokens[j].kind == "mark" and tokens[j].text in "-'’":
        j += step
    if 0 <= j < len(tokens) and tokens[j].kind == "word":
        return base(tokens[j])
    return ""


def is_filler(token: Token) -> bool:
    return token.kind == "word" and (base(token) in ANSWER_FILLERS or token.lower in ANSWER_FILLERS)
