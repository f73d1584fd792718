"""The owner of a generated session, and what people say on calls: small talk, proposals, decisions made,
decisions put off, and commitments (the owner's own and other people's)."""

from __future__ import annotations

from dataclasses import dataclass

from screen.imitation.generator.vocab import WEEKDAYS, Words


@dataclass(frozen=True)
class Owner:
    first: str
    last: str
    tz: str
    username: str

    @property
    def display_name(self) -> str:
        return f"{self.first} {self.last}"

    @property
    def email(self) -> str:
        return f"{self.first.lower()}.{self.last.lower()}@mailbox.example"


SMALL_TALK = (
    "Can everyone hear me okay?",
    "Sorry, I was on mute",
    "Let me share my screen",
    "Give me one second, my connection is slow",
    "Morning everyone",
    "How was the long weekend?",
    "I think we're just waiting for one more person",
    "Can you see my screen now?",
    "You cut out for a moment there",
    "Right, shall we get started?",
    "Sorry I'm a couple of minutes late",
    "I'll keep this short",
    "Is the recording on?",
    "My camera's playing up today",
)
PROPOSALS = (
    "What if we went with {option}?",
    "I'd lean towards {option}, honestly",
    "We could also look at {option}",
    "{option} seems cheaper on paper",
    "Has anyone actually tried {option}?",
    "My worry with {option} is the timeline",
    "I'm not sure {option} covers everything we need",
    "There's a case for {option} too",
)
DECISIONS = (
    "Okay, so we're going with {option}",
    "Decided then: {option}",
    "Let's lock in {option}",
    "Agreed, {option} it is",
    "Great, we'll go with {option}",
    "So that's settled, {option}",
    "Final answer: {option}",
    "Right, we've agreed on {option}",
    "Then {option} is approved",
    "Fine by everyone? Good, {option} it is then",
    "We've decided on {option}",
    "Let's go ahead with {option}",
)
DEFERRALS = (
    "Let's think about it and come back to this next week",
    "I don't think we can decide that today",
    "Let's park this until we have the numbers",
    "We'll revisit this on {day}",
    "No need to decide anything now",
    "Let's wait for the second quote before we decide",
    "I'd rather not commit until we've heard from {person}",
    "We still haven't landed on anything, have we",
    "Let's leave it open for now",
    "Can we hold off on a decision until {day}?",
    "I need to check with the team before we agree to anything",
    "Let's sleep on it",
)
OWN_COMMITMENTS = (
    "I'll send {thing} round by {day}",
    "I can draft {thing} tonight",
    "Leave it with me, I'll sort out {thing}",
    "I'll follow up with {person} tomorrow",
    "I will book {thing} this afternoon",
    "I'll take the action on {thing}",
    "I'll have {thing} ready before {day}",
    "I'll ping {person} about {thing} after this",
    "Let me write up {thing} and share it",
    "I'm going to chase {thing} first thing {day}",
)
OTHER_COMMITMENTS = (
    "I can sign on {day} if finance agrees",
    "I'll pull the numbers together",
    "I'll get {thing} over to you by {day}",
    "I'll talk to {person} and report back",
    "Let me check the budget and come back to you",
    "I'll ship the replacement part {day}",
    "We'll send a replacement unit out {day}",
    "I'll update the ticket after the call",
)
OPTIONS = (
    "the lakeside venue",
    "the second supplier",
    "the cheaper plan",
    "the May launch",
    "option B",
    "the smaller room",
    "the open-source version",
    "the annual contract",
    "the later start date",
    "the refurbished units",
    "the two-day format",
    "the vendor in {city}",
    "the blue design",
    "the quarterly review",
    "the hybrid setup",
)
THINGS = (
    "the agenda",
    "the slides",
    "both quotes",
    "the budget sheet",
    "the minutes",
    "the contract draft",
    "the floor plan",
    "the test results",
    "the invoice",
    "the shipping label",
    "the proposal",
    "the summary notes",
    "the hiring plan",
    "the room booking",
)
CITIES_SHORT = ("Leeds", "Porto", "Gdansk", "Pune", "Kigali", "Osaka", "Tucson", "Bergen")


def fill(w: Words, template: str, people: list[str]) -> str:
    return template.format(
        option=w.pick("option", OPTIONS).format(city=w.pick("city_short", CITIES_SHORT)),
        thing=w.pick("thing", THINGS),
        day=w.pick("weekday", WEEKDAYS),
        person=w.rng.choice(people) if people else "the team",
    )
