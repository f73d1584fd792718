"""Redaction by structure: secrets through and false redactions, on every labelled day and on generated talk.

    .venv/bin/python bench/redaction.py [--conversations 1500] [--seed 7] [--show 10]

1. **Labelled days** (``/work/shared/bench/labeled-days``, 26 days, 6 wearers): every recording's conversations
   through the pipeline's redaction step (``wearables.pipeline.redact_conversations``, whole conversations, as
   a sync runs it). Secrets through = occurrences of a day's ``redaction_expected`` still in the output
   (digits compared, however grouped). Every other number the step removed is listed as an extra redaction.
2. **Generated talk**: conversations between two or three speakers in domains no labelled day has (gym
   lockers, parcel lockers, Wi-Fi, utilities, insurance and health IDs, workplace doors, verification codes,
   tax and licence numbers, safes, voicemail…) and some it has, secrets said once or read back by the listener,
   written or spoken digit by digit ("four seven one nine", "double five", "forty-seven nineteen"), with
   separators, and plain numbers of every kind that must survive (dates, prices, times, addresses, phones,
   quantities, flights, unit numbers, years, ages, references), also right after a secret was asked for.

3. **Credentials** (``--credentials``, default 200 per format): values of each published format (service keys
   and tokens, JSON web tokens) drawn from random characters, in carrier lines of shells, config files, logs and
   chat messages, plus look-alikes that must stay (commit hashes, digests, UUIDs, container digests, long paths,
   links with queries, base64 file names).

Prints the figures per wearer, per domain, per kind of plain number and per credential format. Pure: no database.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import re
import sys
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
LABELED = Path("/work/shared/bench/labeled-days")

# --- generated talk ----------------------------------------------------------------------------------------------
DIGIT_WORD = "zero one two three four five six seven eight nine".split()
TENS_WORD = {2: "twenty", 3: "thirty", 4: "forty", 5: "fifty", 6: "sixty", 7: "seventy", 8: "eighty", 9: "ninety"}
TEEN_WORD = "ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen".split()


def say_pair(n: int) -> str:
    if n < 10:
        return f"oh {DIGIT_WORD[n]}"
    if n < 20:
        return TEEN_WORD[n - 10]
    tens, units = divmod(n, 10)
    return TENS_WORD[tens] + (f"-{DIGIT_WORD[units]}" if units else "")


def say_digits(digits: str, rng: random.Random) -> str:
    """Digits the way people read them out: one by one, with "oh" for zero and "double" for a repeat."""
    words, i = [], 0
    while i < len(digits):
        d = digits[i]
        if i + 1 < len(digits) and digits[i + 1] == d and rng.random() < 0.5:
            words.append(f"double {DIGIT_WORD[int(d)]}")
            i += 2
            continue
        words.append("oh" if d == "0" and rng.random() < 0.5 else DIGIT_WORD[int(d)])
        i += 1
    return " ".join(words)


def forms(digits: str, rng: random.Random, *, groups: tuple[int, ...] = ()) -> list[str]:
    """Ways to say one number: as written, grouped with spaces or dashes, digit by digit, in pairs, spoken."""
    out = [digits]
    if groups:
        parts, i = [], 0
        for g in groups:
            parts.append(digits[i : i + g])
            i += g
        out += [" ".join(parts), "-".join(parts)]
    else:
        out.append(" ".join(digits))
    out.append(say_digits(digits, rng))
    if len(digits) == 4 and digits[0] != "0" and digits[2] != "0":
        out.append(f"{say_pair(int(digits[:2]))} {say_pair(int(digits[2:]))}")
    return out


def _digits(rng: random.Random, n: int) -> str:
    while True:
        s = "".join(rng.choice("0123456789") for _ in range(n))
        if len(set(s)) > 1 and s[0] != "0":
            return s


def _luhn(rng: random.Random, prefix: str, length: int) -> str:
    from stdnum import luhn

    body = prefix + "".join(rng.choice("0123456789") for _ in range(length - len(prefix) - 1))
    return body + luhn.calc_check_digit(body)


def _iban(rng: random.Random) -> str:
    from stdnum import iban

    country, bban = rng.choice([("DE", _digits(rng, 18)), ("NL", "ABNA" + _digits(rng, 10)), ("FR", _digits(rng, 23))])
    raw = f"{country}00{bban}"
    full = f"{country}{iban.calc_check_digits(raw)}{bban}"
    return " ".join(full[i : i + 4] for i in range(0, len(full), 4))


@dataclass
class Secret:
    """A generator of one kind of secret: its cue phrases and how its values are made and said."""

    cues: tuple[str, ...]
    make: object  # rng -> (value digits or text, groups)
    spoken: bool = True  # may be read out digit by digit
    keypad: bool = False  # "…, then enter"


def _num(n, groups=()):
    return lambda rng: (_digits(rng, n), groups)


DOMAINS: dict[str, list[Secret]] = {
    "gym": [
        Secret(("locker combination", "combination for my locker", "combo on the locker"), _num(6, (2, 2, 2))),
        Secret(("membership number", "member number"), _num(8, (4, 4))),
    ],
    "parcel locker": [
        Secret(("collection code", "pickup PIN", "locker code", "code for the parcel locker"), _num(6, (3, 3))),
    ],
    "wi-fi": [Secret(("wifi password", "network password", "password for the router"), None, spoken=False)],
    "utilities": [Secret(("account number", "customer account number"), _num(10, (5, 5)))],
    "health insurance": [
        Secret(("member ID", "policy number", "insurance number"), _num(9, (3, 3, 3))),
        Secret(("health card number", "NHS number"), _num(10, (3, 3, 4))),
    ],
    "workplace": [
        Secret(("door code", "code for the server room", "keypad code", "badge PIN"), _num(4), keypad=True),
        Secret(("code for the supply cupboard", "access code"), _num(5), keypad=True),
    ],
    "verification": [Secret(("verification code", "one-time code", "security code they texted"), _num(6, (3, 3)))],
    "tax": [Secret(("tax file number", "tax ID", "TIN"), _num(9, (3, 3, 3)))],
    "driving": [Secret(("licence number", "driver's license number"), lambda rng: ("D" + _digits(rng, 8), ()))],
    "safe": [Secret(("safe combination", "combination to the safe", "code for the safe"), _num(6, (2, 2, 2)))],
    "voicemail": [Secret(("voicemail PIN", "PIN for my voicemail", "PUK code"), _num(4), keypad=True)],
    "bike lock": [Secret(("bike lock combination", "padlock combination", "combo for the bike lock"), _num(4))],
    "home security": [
        Secret(("alarm code", "garage code", "lockbox code", "code for the back door"), _num(4), keypad=True)
    ],
    "banking": [
        Secret(("card number",), lambda rng: (_luhn(rng, rng.choice(["4", "51", "52"]), 16), (4, 4, 4, 4))),
        Secret(("sort code",), _num(6, (2, 2, 2))),
        Secret(("routing number",), _num(9, (3, 3, 3))),
        Secret(("IBAN",), lambda rng: (_iban(rng), ()), spoken=False),
        Secret(("PIN", "card PIN"), _num(4)),
        Secret(("security code on the back", "CVV"), _num(3)),
    ],
    "travel documents": [
        Secret(("passport number",), lambda rng: (rng.choice("KPXNR") + _digits(rng, 8), ())),
        Secret(("visa number",), _num(8, (4, 4))),
    ],
    "government": [
        Secret(("social security number", "SSN"), lambda rng: (_digits(rng, 9), (3, 2, 4))),
        Secret(("national insurance number",), lambda rng: ("QX" + _digits(rng, 6) + "C", ())),
    ],
}
WORDS = "otter lighthouse mango falcon cedar velvet harbour quartz maple tiger nimbus copper".split()

ASK = [
    "What's the {cue}?",
    "Can I get your {cue}, please?",
    "Could you read me the {cue}?",
    "And the {cue}?",
    "Sorry, what was the {cue} again?",
    "Do you have the {cue} handy?",
    "Remind me of the {cue}?",
]
ANSWER = ["It's {s}.", "{s}.", "Yeah, {s}.", "Sure, it's {s}.", "Um, {s}, I think.", "Okay, ready? {s}.", "Right, {s}."]
TELL = [
    "The {cue} is {s}.",
    "The {cue}'s {s}.",
    "For the {cue}, it's {s}.",
    "Oh, they changed the {cue}. It's {s} now.",
    "My {cue} is {s}, if you need it.",
    "Use {s} for the {cue}.",
    "{S} is the {cue}.",
    "{S}. That's the {cue}.",
    "Write this down, the {cue}: {s}.",
    "Okay so the {cue}, hang on, {s}.",
]
KEYPAD = ["{s}, then enter.", "{s} and then the hash key.", "{s}, then the green button."]
ECHO = ["{s}.", "{s}, got it.", "So {s}?", "{s}, okay.", "Let me read that back. {s}.", "{S}. Perfect.", "Sorry, {s}?"]
TALK = [
    "Thanks, you're a star.",
    "Perfect, that's all I need.",
    "Grand, I'll sort it out this afternoon.",
    "No problem at all.",
    "Brilliant, cheers.",
]

# Plain numbers that must survive: (kind, sentence with {n}, how the number is made).
PLAIN = [
    ("date", "It's booked for March {n}.", lambda r: str(r.randint(2, 28))),
    ("date", "We moved in on the {n}th of June.", lambda r: str(r.randint(4, 20))),
    ("date", "That was back in {n}.", lambda r: str(r.randint(1995, 2025))),
    ("date", "The renewal is due on {n}.", lambda r: f"{r.randint(1, 28)}/{r.randint(1, 12)}/20{r.randint(26, 29)}"),
    ("price", "It came to {n} dollars in the end.", lambda r: str(r.randint(120, 4800))),
    ("price", "They want £{n} a month for it.", lambda r: f"{r.randint(1, 3)},{r.randint(100, 999)}"),
    ("price", "The fee is {n} euro.", lambda r: str(r.randint(150, 2500))),
    ("price", "Rent is {n} a month now.", lambda r: str(r.randint(900, 3400))),
    ("time", "I'll be there at {n}.", lambda r: f"{r.randint(1, 12)}:{r.choice(['15', '30', '45'])}"),
    ("time", "The class starts at {n}.", lambda r: f"{r.randint(1, 12)} {r.choice(['15', '30', '45'])}"),
    ("time", "Let's say {n} then.", lambda r: f"{r.choice(['four', 'six', 'ten'])}-{r.choice(['thirty', 'fifteen'])}"),
    ("address", "It's {n} Maple Avenue, the blue door.", lambda r: str(r.randint(100, 2999))),
    ("address", "I'm in apartment {n} now.", lambda r: str(r.randint(101, 2408))),
    ("address", "Unit {n}, round the back.", lambda r: " ".join(str(r.randint(1000, 2400)))),
    ("address", "The office is at {n} Harbour Street.", lambda r: str(r.randint(10, 999))),
    (
        "phone",
        "Call me on {n} if it's late.",
        lambda r: f"0{r.randint(71, 89)} {r.randint(100, 999)} {r.randint(1000, 9999)}",
    ),
    (
        "phone",
        "Their phone number is {n}.",
        lambda r: f"{r.randint(200, 989)}-{r.randint(200, 989)}-{r.randint(1000, 9999)}",
    ),
    ("quantity", "We need {n} chairs for the hall.", lambda r: str(r.randint(30, 400))),
    ("quantity", "I did {n} steps today.", lambda r: str(r.randint(3000, 14000))),
    ("quantity", "It weighs about {n} grams.", lambda r: str(r.randint(150, 900))),
    ("quantity", "There were {n} people at the thing.", lambda r: str(r.randint(120, 900))),
    ("flight", "I'm on flight {n} tomorrow.", lambda r: f"{r.choice(['BA', 'AC', 'EI', 'UA'])} {r.randint(100, 1999)}"),
    ("flight", "The train leaves from platform {n}.", lambda r: str(r.randint(2, 14))),
    ("age", "She turned {n} in May.", lambda r: str(r.randint(30, 95))),
    ("reference", "The tracking number is {n}.", lambda r: f"{r.randint(100000, 999999)}"),
    ("reference", "Our booking reference is {n}.", lambda r: f"{r.randint(100000, 999999)}"),
]
PLAIN_ASK = {
    "date": "When is it?",
    "price": "How much was it?",
    "time": "What time?",
    "address": "What's the address?",
    "phone": "What's the best number to reach you?",
    "quantity": "How many?",
    "flight": "Which flight?",
    "age": "How old is she now?",
    "reference": "Have you got a reference?",
}


@dataclass
class Mention:
    turn: int
    surface: str
    secret: bool
    kind: str  # the domain for a secret, the plain kind otherwise
    digits: str = ""


@dataclass
class Talk:
    domain: str
    turns: list[str] = field(default_factory=list)
    mentions: list[Mention] = field(default_factory=list)


def _secret_value(secret: Secret, rng: random.Random) -> tuple[str, list[str]]:
    if secret.make is None:  # a password
        value = rng.choice([f"{rng.choice(WORDS)}{rng.randint(10, 99)}", f"{rng.choice(WORDS).capitalize()}-"
                            f"{rng.choice(WORDS)}-{rng.randint(1, 9)}", f"{rng.choice(WORDS)}{rng.choice(WORDS)}"])  # fmt: skip
        return value, [value]
    value, groups = secret.make(rng)
    if not value.isdigit():
        return value, [value]
    said = (
        forms(value, rng, groups=groups)
        if secret.spoken
        else [value, " ".join(value[i : i + 4] for i in range(0, len(value), 4))]
    )
    if len(value) > 10:
        said = [s for s in said if not re.search(r"[a-z]", s)] or said  # nobody says 16 digits as words
    return value, said


def generate(n: int, seed: int = 7) -> list[Talk]:
    rng = random.Random(seed)
    talks = []
    names = list(DOMAINS)
    for i in range(n):
        domain = names[i % len(names)]
        secret = rng.choice(DOMAINS[domain])
        talks.append(_one_talk(domain, secret, rng))
    return talks


def _one_talk(domain: str, secret: Secret, rng: random.Random) -> Talk:
    talk = Talk(domain)
    cue = rng.choice(secret.cues)
    value, said = _secret_value(secret, rng)
    s = rng.choice(said)
    digits = re.sub(r"\D", "", value) if secret.make is not None else value

    def add(text: str, mention: Mention | None = None) -> None:
        if mention is not None:
            mention.turn = len(talk.turns)
            talk.mentions.append(mention)
        talk.turns.append(text)

    if rng.random() < 0.3:
        _plain_turns(talk, rng, 1)
    if rng.random() < 0.5:
        add(rng.choice(ASK).format(cue=cue))
        template = rng.choice(KEYPAD if secret.keypad and rng.random() < 0.4 else ANSWER)
    else:
        template = rng.choice(TELL)
    add(template.format(cue=cue, s=s, S=s[0].upper() + s[1:]), Mention(0, s, True, domain, digits))
    if rng.random() < 0.6:  # the listener reads it back, perhaps another way
        echo = rng.choice(said)
        add(rng.choice(ECHO).format(s=echo, S=echo[0].upper() + echo[1:]), Mention(0, echo, True, domain, digits))
    if rng.random() < 0.7:
        _plain_turns(talk, rng, rng.randint(1, 3), asked=rng.random() < 0.5)
    add(rng.choice(TALK))
    return talk


def _plain_turns(talk: Talk, rng: random.Random, count: int, *, asked: bool = False) -> None:
    for _ in range(count):
        kind, sentence, make = rng.choice(PLAIN)
        n = make(rng)
        if asked and kind in PLAIN_ASK:
            talk.turns.append(PLAIN_ASK[kind])
        talk.mentions.append(Mention(len(talk.turns), n, False, kind))
        talk.turns.append(sentence.format(n=n))


# --- scoring -----------------------------------------------------------------------------------------------------
def _digits_of(text: str) -> str:
    return re.sub(r"[^0-9A-Za-z]", "", text).upper()


def leaked(surface: str, digits: str, output: str) -> bool:
    """Whether a secret is still in a redacted turn: as said, or its digits in the turn's remaining digits."""
    if surface in output:
        return True
    key = _digits_of(digits or surface)
    return len(key) >= 3 and key in _digits_of(output)


def score_generated(talks: list[Talk], redact) -> dict:
    through, secrets = Counter(), Counter()
    kept, plain, examples = Counter(), Counter(), defaultdict(list)
    for talk in talks:
        out = redact(talk.turns)
        for m in talk.mentions:
            if m.secret:
                secrets[m.kind] += 1
                if leaked(m.surface, m.digits, out[m.turn]):
                    through[m.kind] += 1
                    examples["through"].append(out[m.turn])
            else:
                plain[m.kind] += 1
                if m.surface in out[m.turn]:
                    kept[m.kind] += 1
                else:
                    examples[m.kind].append(f"{talk.turns[m.turn]}  ->  {out[m.turn]}")
    return {"secrets": secrets, "through": through, "plain": plain, "kept": kept, "examples": examples}


def labeled_days(path: Path = LABELED) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted(path.glob("*.json"))]


def said_numbers(text: str) -> list[tuple[str, str]]:
    """Every number in a turn as said (written or in words: "1104", "four-thirty") with the digits it stands for."""
    from ledger.redaction.numbers import number_runs, tokenize

    return [(text[r.start : r.end], r.value) for r in number_runs(tokenize(text)) if r.digits]


def score_labeled(days: list[dict], redact) -> dict:
    """Per wearer (named by their first day, never by name): secret occurrences, secrets through, written
    numbers said, and written numbers removed that are no expected secret (each listed)."""
    rows: dict[str, Counter] = defaultdict(Counter)
    first: dict[str, str] = {}
    extra: list[str] = []
    for day in days:
        wearer = first.setdefault(day["wearer"], day["date"])
        expected = day.get("redaction_expected") or []
        secret_digits = [_digits_of(s) for s in expected]
        rows[wearer]["days"] += 1
        for rec in day["recordings"]:
            for conv in rec["conversations"]:
                texts = [u["text"] for u in conv["utterances"]]
                out = redact(texts)
                for before, after in zip(texts, out, strict=True):
                    hits = [s for s in expected if s in before or _digits_of(s) in _digits_of(before)]
                    rows[wearer]["secrets"] += len(hits)
                    rows[wearer]["through"] += sum(leaked(s, s, after) for s in hits)
                    for number, value in said_numbers(before):
                        digits = _digits_of(value)
                        if any(digits and (digits in s or s in digits) for s in secret_digits if s):
                            continue
                        rows[wearer]["numbers"] += 1
                        if number not in after:
                            rows[wearer]["extra"] += 1
                            extra.append(f"{day['date']}: {before[:140]}  ->  {after[:140]}")
    return {"rows": rows, "extra": extra}


def pipeline_redactor(texts: list[str]) -> list[str]:
    """The pipeline's redaction step on one conversation (no user patterns)."""
    from wearables.pipeline import Convo, PipelineConfig, Turn, redact_conversations

    turns = [Turn(text=t or " ") for t in texts]  # the step drops empty turns: keep every position for scoring
    convo = Convo(source="bench", external_id="c", started_at=datetime(2026, 1, 1), turns=turns)
    [done] = redact_conversations([convo], PipelineConfig())
    return [t.text for t in done.turns]


# --- credentials -------------------------------------------------------------------------------------------------
ALNUM = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
HEX = "0123456789abcdef"


def random_chars(rng: random.Random, n: int, alphabet: str = ALNUM) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def credential_values(seed: int) -> dict[str, str]:
    """One value per published format, drawn from ``seed`` (random characters: no real key)."""
    rng = random.Random(seed)
    upper = ALNUM[26:]
    return {
        "github": rng.choice(["ghp_", "gho_", "ghs_"]) + random_chars(rng, 36),
        "gitlab": "glpat-" + random_chars(rng, 20),
        "aws": "AKIA" + random_chars(rng, 16, upper),
        "slack": rng.choice(["xoxb-", "xoxp-"]) + random_chars(rng, 10, "0123456789") + "-" + random_chars(rng, 24),
        "stripe": rng.choice(["sk_live_", "rk_live_"]) + random_chars(rng, 24),
        "jwt": "eyJ" + random_chars(rng, 30) + ".eyJ" + random_chars(rng, 40) + "." + random_chars(rng, 43),
        "pypi": "pypi-AgEIcHlwaS5vcmc" + random_chars(rng, 70),
        "sendgrid": "SG." + random_chars(rng, 22) + "." + random_chars(rng, 43),
    }


CARRIERS = [
    "$ export TOKEN={}",
    'api_token: "{}"',
    "2026-11-30 14:02:11 WARN retrying with credential {} after 401",
    "ok here's the key for staging {} — don't share it",
    "Authorization: Bearer {}",
    "REGISTRY_AUTH={} docker compose up -d",
]


def look_alikes(rng: random.Random) -> list[str]:
    """Strings that look random and are no credential."""
    return [
        f"merged {random_chars(rng, 40, HEX)} into main",
        f"sha256:{random_chars(rng, 64, HEX)}",
        f"image registry.example.org/tools/api@sha256:{random_chars(rng, 64, HEX)}",
        f"run {random_chars(rng, 8, HEX)}-{random_chars(rng, 4, HEX)}-4{random_chars(rng, 3, HEX)}-a{random_chars(rng, 3, HEX)}-{random_chars(rng, 12, HEX)}",
        f"/home/oona/projects/weather_station_{random_chars(rng, 12)}/readings_2026_11.csv",
        f"https://maps.example.org/search?q=harbour+cafe&sessionid={random_chars(rng, 10, HEX)}&zoom=14",
        f"uploaded IMG_{random_chars(rng, 20)}.jpeg to the album",
    ]


def score_credentials(per_format: int, seed: int, redact) -> dict:
    """Credentials through per format, and look-alikes changed."""
    rng = random.Random(seed)
    said, through, plain, changed = Counter(), Counter(), 0, []
    for n in range(per_format):
        for kind, value in credential_values(seed * 100_003 + n).items():
            line = rng.choice(CARRIERS).format(value)
            said[kind] += 1
            out = redact([line])[0]
            through[kind] += value in out or value[6:-6] in out
        for line in look_alikes(rng):
            plain += 1
            if redact([line])[0] != line:
                changed.append(line)
    return {"said": said, "through": through, "plain": plain, "changed": changed}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--conversations", type=int, default=1500)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--show", type=int, default=8, help="examples of each failure kind to print")
    parser.add_argument("--credentials", type=int, default=200, help="values per credential format")
    args = parser.parse_args(argv)
    print(f"machine: {platform.machine()}, Python {platform.python_version()}, {platform.system()}")

    started = time.perf_counter()
    labeled = score_labeled(labeled_days(), pipeline_redactor) if LABELED.exists() else None
    if labeled:
        print("\nLabelled days: secrets through / secret occurrences; other numbers said (digits or words) removed")
        for wearer, row in sorted(labeled["rows"].items()):
            print(f"  wearer from {wearer} ({row['days']} days): {row['through']}/{row['secrets']} through; "
                  f"{row['extra']}/{row['numbers']} other numbers removed")  # fmt: skip
        total = Counter()
        for row in labeled["rows"].values():
            total.update(row)
        print(f"  all {total['days']} days: {total['through']}/{total['secrets']} through; "
              f"{total['extra']}/{total['numbers']} other numbers removed")  # fmt: skip
        for line in labeled["extra"][: args.show]:
            print(f"    removed: {line}")

    talks = generate(args.conversations, args.seed)
    result = score_generated(talks, pipeline_redactor)
    turns = sum(len(t.turns) for t in talks)
    print(f"\nGenerated talk: {len(talks)} conversations, {turns} turns, seed {args.seed}")
    print(f"  {'domain':18} {'secrets':>8} {'through':>8}")
    for domain in DOMAINS:
        print(f"  {domain:18} {result['secrets'][domain]:8} {result['through'][domain]:8}")
    print(f"  {'all':18} {sum(result['secrets'].values()):8} {sum(result['through'].values()):8}")
    print(f"\n  {'plain number':18} {'said':>8} {'removed':>8}")
    for kind in sorted(result["plain"]):
        print(f"  {kind:18} {result['plain'][kind]:8} {result['plain'][kind] - result['kept'][kind]:8}")
    said, kept = sum(result["plain"].values()), sum(result["kept"].values())
    print(f"  {'all':18} {said:8} {said - kept:8}  ({100 * (said - kept) / max(1, said):.1f}% falsely removed)")
    for kind, lines in result["examples"].items():
        for line in lines[: args.show]:
            print(f"    {kind}: {line}")
    creds = score_credentials(args.credentials, args.seed, pipeline_redactor)
    print(f"\n  {'credential':18} {'said':>8} {'through':>8}")
    for kind in sorted(creds["said"]):
        print(f"  {kind:18} {creds['said'][kind]:8} {creds['through'][kind]:8}")
    print(f"  look-alikes (hashes, digests, UUIDs, paths, links): {len(creds['changed'])}/{creds['plain']} changed")
    for line in creds["changed"][: args.show]:
        print(f"    changed: {line}")
    print(f"\n{time.perf_counter() - started:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
