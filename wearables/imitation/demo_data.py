"""Fictional demo days for the imitation servers, in the labeled-days JSON shape.

Everything here is invented for the demo: the wearer (Dana Whitfield, the demo user), the people, places and
numbers. The SSN-shaped number is made up and the card number is a public test number (Luhn-valid), so the
redaction step has something to show. One conversation is recorded by two devices (Limitless and Bee) with
different segmentation and transcription, one spans midnight UTC (23:30 local), and one has an
"off the record … back on the record" span.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

WEARER = "Dana Whitfield"
DEMO_TIMEZONE = "America/Denver"
DEMO_SSN = "623-41-0958"
DEMO_CARD = "4111 1111 1111 1111"

ME = "me"
# name → how Limitless shows them (a display name once identified, else "Unknown").
PEOPLE = {
    "Jun": "Jun Watanabe",
    "Tomas": "Tomás Ortega",
    "Ben": "Unknown",
    "Helen": "Helen Park",
    "Rosa": "Rosa Delgado",
    "Nadia": "Unknown",
    "Agent": "Unknown",
    "Desk": "Unknown",
    "Leo": "Unknown",
    "Mom": "Unknown",
    "Vendor": "Unknown",
    "Priti": "Priti Raman",
    "Owen": "Unknown",
    "Coach": "Unknown",
}


@dataclass(frozen=True)
class Line:
    speaker: str
    text: str
    alt: str | None = None  # how the second device heard it (two-device conversation only)


@dataclass(frozen=True)
class Script:
    slug: str
    day: int  # 0 = first demo day
    at: time  # local start time
    sources: tuple[str, ...]
    lines: tuple[Line, ...]


def L(speaker: str, text: str, alt: str | None = None) -> Line:  # noqa: N802 - reads like a script
    return Line(speaker, text, alt)


# A week of Dana's talk, written so the memory pass has every case to show: durable statements said plainly
# (accepted), plausible ones it cannot be sure of (queued for review: second-hand, unnamed speakers, things at
# hand), and talk that is no fact at all (dropped with its reason: jokes and hyperbole, offers, passing actions,
# questions, hypotheticals, a line from a TV show, pronouns nobody resolved).
SCRIPTS: tuple[Script, ...] = (
    Script(
        "standup",
        0,
        time(9, 5),
        ("limitless",),
        (
            L("Jun", "Morning everyone. Quick round, Dana, you want to start?"),
            L(ME, "Sure. Um, I finished the the export feature yesterday and it's in review."),
            L(ME, "Today I'm on the billing page bug."),
            L("Tomas", "I can review the export today, I've got time after lunch."),
            L("Jun", "Great. Any blockers?"),
            L(ME, "Uh, not really. I I I might need the staging database reset."),
            L("Jun", "I'll ask ops to reset it before ten."),
            L("Tomas", "Also, heads up, I'm on call this week, so ping me if payments break."),
            L(ME, "This sprint is killing me, honestly."),
            L("Jun", "Ha. One more week. I'm taking Friday off, by the way, my daughter has a recital."),
        ),
    ),
    Script(
        "lunch-bike",
        0,
        time(12, 20),
        ("bee",),
        (
            L("Ben", "So did you decide on the bike or not?"),
            L(ME, "I think so. The blue gravel bike, like, the one from the shop on Pearl Street."),
            L("Ben", "Nice. How much was it in the end?"),
            L(ME, "Eleven hundred, um, with the pedals included."),
            L("Ben", "That's fair. We should ride the canyon loop on Saturday."),
            L(ME, "Yes! Saturday morning works, like eight?"),
            L("Ben", "Eight is good. I'll bring coffee."),
            L(ME, "I don't drink coffee anymore, remember? I switched to green tea in March."),
            L("Ben", "Right, right. I'll bring you one of those matcha things then."),
            L(ME, "Deal. I'm just grabbing napkins, hold on."),
            L("Ben", "If I won the lottery I'd buy a bike shop, honestly."),
        ),
    ),
    Script(
        "insurance-call",
        1,
        time(10, 30),
        ("omi",),
        (
            L("Agent", "Thank you for calling Northpeak Health, this is Sam. How can I help?"),
            L(ME, "Hi, I'm calling about a claim for a dentist visit last month."),
            L("Agent", "I can look that up. Can I have the member's social security number?"),
            L(ME, f"Sure, it's {DEMO_SSN}."),
            L("Agent", "Thanks. I see the claim, it was approved on Friday and the payment goes out next week."),
            L(ME, "Oh great. Also, I'm allergic to penicillin, is that on my file?"),
            L("Agent", "It is, penicillin allergy is listed. Anything else?"),
            L(ME, "No, um, that's all I needed. Thanks Sam."),
        ),
    ),
    Script(
        "garden-fence",
        1,
        time(18, 10),
        ("limitless",),
        (
            L("Helen", "Dana! Your tomatoes are taking over the fence again."),
            L(ME, "I know, I'm sorry. I'll tie them back."),
            L("Helen", "Oh I don't mind, take some of my basil if you want."),
            L(ME, "I'd love that. I'm making pesto on Sunday."),
            L("Helen", "I'm a retired botanist, you know, so I can't help giving advice."),
            L("Helen", "By the way, I'm away from the twelfth to the twentieth, could you water my plants?"),
            L(ME, "Of course. Leave the key under the blue pot."),
            L("Helen", "My grandson moved to Tucson last month, so I'm flying out to see him."),
        ),
    ),
    Script(
        "dentist-desk",
        2,
        time(8, 40),
        ("bee",),
        (
            L("Desk", "Good morning, Bright Smile Dental. Are you checking in?"),
            L(ME, "Yes, Dana Whitfield, eight forty-five cleaning."),
            L("Desk", "Perfect. There's a forty dollar copay today. Card on file or a new one?"),
            L(ME, f"A new one, um, it's a Visa, {DEMO_CARD}."),
            L("Desk", "Got it. And your next cleaning, six months from now, the fourteenth at nine?"),
            L(ME, "The fourteenth at nine works."),
        ),
    ),
    Script(
        "one-on-one",
        2,
        time(15, 0),
        ("omi",),
        (
            L("Jun", "Thanks for making time. How's the billing bug going?"),
            L(ME, "Fixed, it was a rounding issue in the tax line. It ships tomorrow."),
            L("Jun", "Nice work. Can we go off the record for a second?"),
            L(ME, "Sure. Off the record."),
            L("Jun", "I'm interviewing at another company next month, please keep that between us."),
            L(ME, "Of course, thanks for telling me."),
            L("Jun", "Okay. Back on the record."),
            L(ME, "Back on the record. I'd like to lead the reporting project next quarter."),
            L("Jun", "I think you'd be great for it. Write me a one page plan by Friday."),
            L(ME, "I'll have the plan to you by Friday."),
            L("Jun", "You're the most senior engineer on the team now, you know that?"),
        ),
    ),
    Script(
        "dinner-plans",
        3,
        time(19, 15),
        ("limitless", "bee"),
        (
            L(
                "Rosa",
                "So for Mom's seventieth, I was thinking the restaurant on Larimer, Casa Luz.",
                "So for mom's seventieth I was thinking the restaurant on Larimer, Casa Lose.",
            ),
            L(
                ME,
                "Um, Casa Luz is nice, but it's loud. What about a dinner at my place?",
                "Casa Luz is nice but it's loud. What about, uh, a dinner at my place?",
            ),
            L(ME, "I can cook, and you bring the cake.", "I can cook and you bring the cake."),
            L("Rosa", "That's sweeter. Saturday the nineteenth?", "That's sweeter. Saturday the ninth?"),
            L(
                ME,
                "The nineteenth works. I'll invite Aunt Carmen too.",
                "The nineteenth works, I'll invite aunt Carmen too.",
            ),
            L(
                "Rosa",
                "Perfect. I'll order the tres leches from Dulce.",
                "Perfect, I'll order the tres leches from Dulce.",
            ),
            L(
                "Rosa",
                "Oh, and I got the job at the children's hospital, I start in January.",
                "Oh and I got the job at the children's hospital, I start in January.",
            ),
            L(ME, "Rosa! That's amazing.", "Rosa, that's amazing!"),
        ),
    ),
    Script(
        "tv-night",
        3,
        time(21, 40),
        ("omi",),
        (
            L("Owen", "Did you see the new episode of Harbor Lights?"),
            L(ME, "Yes! The captain goes, I'm allergic to the sea, every single episode."),
            L("Owen", "Ha, classic. Are you still doing the pottery class?"),
            L(ME, "Every Tuesday. I've been doing pottery for two years now."),
            L("Owen", "I'm a carpenter, I should make you shelves for all those bowls."),
        ),
    ),
    Script(
        "lease-call",
        4,
        time(11, 0),
        ("limitless",),
        (
            L("Nadia", "Hi Dana, it's Nadia from Alder Property. Calling about your lease renewal."),
            L(ME, "Hi Nadia. Yes, I got the letter. The rent goes up by how much?"),
            L("Nadia", "Three percent, so nineteen fifty-six a month from August."),
            L(ME, "Okay. I'd like to renew for twelve months then."),
            L("Nadia", "Great, I'll email the paperwork today. Unit number is 4 0 7, right?"),
            L(ME, "Yes, 4 0 7. I've lived in this building for six years."),
        ),
    ),
    Script(
        "gym-session",
        4,
        time(17, 30),
        ("bee",),
        (
            L(ME, "Okay, okay, last set. How's your knee holding up?"),
            L("Ben", "Better. The physio says no running until June though."),
            L(ME, "That's that's rough. Bike rides are still fine?"),
            L("Ben", "Yeah, biking is fine. So Saturday's still on."),
            L(ME, "Saturday's on. Eight at the trailhead."),
            L("Ben", "I work nights at the fire station starting next month, so weekends are all I've got."),
        ),
    ),
    Script(
        "late-call",
        4,
        time(23, 30),
        ("omi",),
        (
            L("Rosa", "Sorry for calling so late. Mom asked if she can bring her neighbor Elena."),
            L(ME, "Of course she can. That makes seven people."),
            L("Rosa", "Okay, I'll tell her. Go to sleep!"),
            L(ME, "Night, Rosa."),
        ),
    ),
    Script(
        "market",
        5,
        time(10, 0),
        ("limitless",),
        (
            L("Vendor", "Morning! Peaches just came in from Palisade."),
            L(ME, "Oh nice, um, two pounds please."),
            L("Vendor", "That's eight dollars. Want some honey too?"),
            L(ME, "No thanks, I'm allergic to bee pollen, so I skip the raw honey."),
            L("Vendor", "I keep the bees myself, out in Longmont. Forty hives."),
        ),
    ),
    Script(
        "code-review",
        5,
        time(14, 0),
        ("omi",),
        (
            L("Tomas", "I left three comments on your export pull request."),
            L(ME, "Thanks. The ticket is 4 4 0 2, right?"),
            L("Tomas", "Right, 4 4 0 2. The main one is the CSV header order."),
            L(ME, "Uh, good catch. I'll fix the header order this afternoon."),
            L("Tomas", "Then it's good to merge. I'm moving to the platform team in February, did Jun tell you?"),
            L(ME, "No! We'll miss you."),
        ),
    ),
    Script(
        "climbing-wall",
        5,
        time(18, 30),
        ("limitless",),
        (
            L("Priti", "You climbed that overhang like it was nothing."),
            L(ME, "Ha, my forearms are on fire. I've been climbing since college though."),
            L("Priti", "I just got my route setting certificate, so I'm setting on Wednesdays now."),
            L(ME, "Congrats! Are you still vegetarian, for the potluck?"),
            L("Priti", "Vegan now, actually, since the summer."),
            L(ME, "Noted. I'll make the lentil thing."),
        ),
    ),
    Script(
        "hike-plan",
        6,
        time(9, 30),
        ("bee",),
        (
            L("Leo", "Mom, are we still doing the hike tomorrow?"),
            L(ME, "Yes, Mount Falcon, we leave at seven thirty."),
            L("Leo", "Can Ben come? He said he likes that trail."),
            L(ME, "I'll ask him. Pack your rain jacket, it might storm after noon."),
            L("Leo", "I made the soccer team, by the way. Practice is Mondays and Thursdays."),
            L(ME, "Leo, that's great! I'm so proud of you."),
        ),
    ),
    Script(
        "call-home",
        6,
        time(16, 0),
        ("limitless",),
        (
            L("Mom", "Dana, mija, Rosa told me about the dinner."),
            L(ME, "Yes, Mom, Saturday the nineteenth at my place."),
            L("Mom", "Should I bring anything? My flan?"),
            L(ME, "Your flan would be perfect."),
            L("Mom", "I can't eat gluten anymore, the doctor said, so no bread for me."),
            L(ME, "Okay, I'll make everything gluten free."),
        ),
    ),
)

# Bee labels per conversation: first speaker heard is "0"; the wearer is therefore not always "0".
PREFIX = {"limitless": "ll", "bee": "bee", "omi": "omi"}
DEVICE_DELAY = {"limitless": 0.0, "bee": 3.2, "omi": 1.4}


def _duration(text: str) -> float:
    return max(1.2, round(len(text.split()) * 0.36, 3))


def _stamp(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _lines_for(script: Script, source: str) -> list[Line]:
    lines = list(script.lines)
    if source == "bee" and len(script.sources) > 1:
        # The second device hears it differently and merges consecutive turns by the same speaker.
        merged: list[Line] = []
        for line in lines:
            text = line.alt or line.text
            if merged and merged[-1].speaker == line.speaker:
                merged[-1] = Line(line.speaker, f"{merged[-1].text} {text}")
            else:
                merged.append(Line(line.speaker, text))
        return merged
    return lines


def _label(source: str, speaker: str, order: list[str]) -> str:
    if speaker not in order:
        order.append(speaker)
    if source == "limitless":
        return "user" if speaker == ME else PEOPLE.get(speaker, "Unknown")
    number = order.index(speaker)
    return str(number) if source == "bee" else f"SPEAKER_{number:02d}"


def build_conversation(script: Script, source: str, day: date, tz: ZoneInfo) -> dict:
    start = datetime.combine(day, script.at, tzinfo=tz) + timedelta(seconds=DEVICE_DELAY[source])
    cursor = start
    order: list[str] = []
    utterances = []
    for line in _lines_for(script, source):
        end = cursor + timedelta(seconds=_duration(line.text))
        utterances.append(
            {
                "speaker": _label(source, line.speaker, order),
                "is_wearer": line.speaker == ME,
                "start": _stamp(cursor),
                "end": _stamp(end),
                "text": line.text,
            }
        )
        cursor = end + timedelta(seconds=0.7)
    return {
        "id": f"{PREFIX[source]}-{day:%Y%m%d}-{script.slug}",
        "started_at": _stamp(start),
        "ended_at": utterances[-1]["end"],
        "utterances": utterances,
    }


def build_demo_days(end_date: date, *, timezone: str = DEMO_TIMEZONE, wearer: str = WEARER) -> list[dict]:
    """Seven consecutive days ending on ``end_date`` (local dates in ``timezone``), labeled-days shape.

    Returns one dict per day with ``recordings`` for the sources that recorded that day; ``gold_facts`` and
    ``traps`` are empty (demo data is not a benchmark), ``redaction_expected`` lists the sensitive numbers.
    """
    tz = ZoneInfo(timezone)
    first = end_date - timedelta(days=6)
    days = []
    for offset in range(7):
        day = first + timedelta(days=offset)
        recordings: dict[str, list[dict]] = {}
        for script in (s for s in SCRIPTS if s.day == offset):
            for source in script.sources:
                recordings.setdefault(source, []).append(build_conversation(script, source, day, tz))
        spoken = " ".join(u["text"] for convs in recordings.values() for c in convs for u in c["utterances"])
        days.append(
            {
                "date": day.isoformat(),
                "timezone": timezone,
                "wearer": wearer,
                "notes": "Fictional demo day generated by wearables.imitation.demo_data.",
                "recordings": [
                    {"source": source, "conversations": sorted(convs, key=lambda c: c["started_at"])}
                    for source, convs in sorted(recordings.items())
                ],
                "gold_facts": [],
                "traps": [],
                "also_true": [],
                "redaction_expected": [n for n in (DEMO_SSN, DEMO_CARD) if n in spoken],
            }
        )
    return days


def _moment(end_date: date, day: int, hour: int) -> datetime:
    return datetime.combine(end_date - timedelta(days=6 - day), time(hour), tzinfo=ZoneInfo(DEMO_TIMEZONE))


def demo_bee_facts(end_date: date) -> list[dict]:
    """Bee's own facts for the demo (``{id, text, tags, created_at (epoch ms), confirmed}``)."""
    facts = [
        (0, "Dana bought a blue gravel bike", ["hobbies"], True),
        (2, "Dana's next dental cleaning is in six months", ["health"], True),
        (3, "Dana is hosting her mother's seventieth birthday dinner", ["family"], True),
        (4, "Dana might enjoy running", ["hobbies"], False),
    ]
    return [
        {
            "id": 7700 + i,
            "text": text,
            "tags": tags,
            "created_at": int(_moment(end_date, day, 22).timestamp() * 1000),
            "confirmed": ok,
        }
        for i, (day, text, tags, ok) in enumerate(facts, start=1)
    ]


def demo_omi_memories(end_date: date) -> list[dict]:
    """Omi's own memories for the demo (``{id, content, tags, created_at, conversation_id}``)."""
    first = end_date - timedelta(days=6)
    memories = [
        (
            2,
            "Dana wants to lead the reporting project next quarter",
            f"omi-{first + timedelta(days=2):%Y%m%d}-one-on-one",
        ),
        (
            5,
            "Dana is fixing the CSV header order in the export feature",
            f"omi-{first + timedelta(days=5):%Y%m%d}-code-review",
        ),
    ]
    return [
        {
            "id": f"mem{i:04d}",
            "content": content,
            "tags": [],
            "created_at": _stamp(_moment(end_date, day, 21)),
            "conversation_id": conv,
        }
        for i, (day, content, conv) in enumerate(memories, start=1)
    ]
