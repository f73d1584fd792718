"""Activities of play and of things at home: matches of many kinds of game (fullscreen, in a window, in a
browser, on a phone; pause menus and recaps of older results), a book finished, a video uploaded, a workout
recorded, and machines in domains no rule names (a kiln, a printer, an incubator) that get a generic family."""

from __future__ import annotations

from screen.imitation.generator.model import BROWSER, FULLSCREEN, NATIVE, PHONE, Activity, Phase
from screen.imitation.generator.people import Owner
from screen.imitation.generator.places import Place, place
from screen.imitation.generator.vocab import Words

SIDES = (
    ("White", "Black"),
    ("Red", "Blue"),
    ("Gold", "Silver"),
    ("North", "South"),
    ("Light", "Dark"),
    ("Crimson", "Azure"),
    ("Sun", "Moon"),
)
HANDLES = (
    "kestrel_77",
    "NightOwl",
    "quietfox",
    "pawnstorm",
    "rookie_ray",
    "MossyRock",
    "tidewater",
    "zugzwang9",
    "lanternjaw",
    "Ferrite",
    "boxcar",
    "MapleSyrup",
)
MENUS = (
    "{game}\nPlay\nRanked\nCasual\nSettings\nQuit",
    "{game}\nFind match\nFriends online {n}\nSeason {s} rank: Gold II",
    "Main menu\nContinue\nNew game\nOptions\n{game}",
    "{game}\nChoose opponent\nQuick match\nPlay a friend\nPuzzles",
    "{game}\nMatchmaking\nSearching for players... 0:{m}\nCancel",
)
PAUSES = (
    "PAUSED\nResume\nOptions\nQuit to menu",
    "Game paused\nContinue\nSettings\nExit to title",
    "Paused\nResume game\nControls\nMain menu",
)
RECAP_WORDS = {"win": ("Victory", "Win", "Won"), "loss": ("Defeat", "Loss", "Lost"), "draw": ("Draw", "Drawn")}
RECAPS = (
    "Last match: {result}\nPlay again\nMain menu",
    "Recent games\n{o1} · Won\n{o2} · Lost\n{o3} · Drawn\nNew game",
    "Match history\nvs {o1} won\nvs {o2} lost\nvs {o3} won",
    "Previous result: {result}\nQueue again",
)


NAMED_OPPONENTS = ("board", "cards", "trivia")  # the screen names the one person the owner plays


def _game_place(w: Words, name: str, again: Place | None) -> Place:
    if again is not None:
        return again
    kind = w.rng.choice((FULLSCREEN, FULLSCREEN, NATIVE, NATIVE, BROWSER, PHONE))
    p = place(w, (kind,), brand=name)
    if kind == NATIVE:
        p.app, p.join = name, ""
    return p


def game(w: Words, owner: Owner, again: Place | None = None) -> Activity:
    """One match: a menu or lobby, minutes of play (a pause maybe), the result screen, and a menu after it."""
    name = w.game() if again is None else again.brand
    p = _game_place(w, name, again)
    genre = w.pick("genre", ("board", "board", "arena", "racing", "cards", "sports", "trivia"))
    opp = w.pick("handle", HANDLES) if w.chance(0.4) else w.first_name()
    while opp.lower() in (owner.first.lower(), owner.last.lower()):
        opp = w.first_name()  # an opponent with the owner's own name could be nobody but the owner on screen
    play, result, outcome, subject = _GENRES[genre](w, owner, opp)
    polarity = {"win": "positive", "loss": "negative", "draw": "neutral"}[outcome]
    surface = p.at(name) if p.kind != NATIVE else p.at()
    lead = w.pick("menu", MENUS).format(game=name, n="{n}", m="{m}", s=w.number(2, 9))
    phases = [Phase(surface, lead, w.between(20, 150), every=5, part="lead")]
    bodies = [Phase(surface, text, w.between(60, 300), every=5) for text in play]
    act = Activity(
        "games",
        "game.match",
        outcome,
        polarity,
        result.split("\n")[0],
        [],
        subject=subject,
        opponent=opp if genre in NAMED_OPPONENTS else "",
        surface_kind=p.kind,
        place=p,
    )
    if w.chance(0.3) and len(bodies) >= 2:
        cut = w.number(1, len(bodies) - 1)
        bodies.insert(cut, Phase(surface, w.pick("pause", PAUSES), w.between(15, 120), every=5, part="away"))
        act.distractors.add("interruption")
    phases += bodies
    phases.append(Phase(surface, result, w.between(10, 40), every=5, part="outcome"))
    if w.chance(0.45):
        said = w.pick(f"recap_{outcome}", RECAP_WORDS[outcome])
        recap = w.pick("recap", RECAPS).format(result=said, o1=w.first_name(), o2=w.first_name(), o3=w.first_name())
        phases.append(Phase(surface, recap, w.between(20, 120), every=5, part="after"))
        act.distractors.add("history")
    else:
        phases.append(Phase(surface, lead, w.between(15, 60), every=5, part="after"))
    act.phases = phases
    return act


def _board(w: Words, owner: Owner, opp: str):
    me, them = w.rng.sample(w.pick("sides", SIDES), 2)
    mine = w.pick("own_side", ("{me} (you) 0:{m}", "You play {me}", "{me}: {owner}", "{me} · You"))
    mine = mine.format(me=me, owner=owner.display_name, m="{m}")
    theirs = f"{them}: {opp} 0:{{m}}"
    frames = [
        f"{mine}\n{theirs}\nMove {{n}}\n{turn}\nOffer draw\nResign\na b c d e f g h"
        for turn in ("Your move", f"{opp} is thinking", "Your move")[: w.number(2, 3)]
    ]
    outcome = w.pick("board_outcome", ("win", "win", "loss", "loss", "draw"))
    lines = {
        "win": (
            (f"{them} resigned", "other"),
            (f"Checkmate. {me} wins", "you"),
            (f"{opp} ran out of time", "other"),
            ("You won by resignation", "you"),
            (f"{me} wins on time", "you"),
            (f"Winner: {owner.first}", "you"),
        ),
        "loss": (
            ("You resigned", "you"),
            (f"Checkmate. {them} wins", "other"),
            (f"{opp} wins", "other"),
            ("You lost on time", "you"),
            (f"Winner: {opp}", "other"),
            (f"{me} resigned", "you"),
        ),
        "draw": (
            ("Draw by repetition", ""),
            ("Stalemate", ""),
            ("Draw agreed", ""),
            ("Game drawn", ""),
            ("Draw by insufficient material", ""),
        ),
    }[outcome]
    line, subject = w.pick(f"board_{outcome}", lines)
    result = (
        f"{line}\nRating {w.number(900, 2100)} ({'+' if outcome == 'win' else '-'}{w.number(1, 12)})\nRematch\nNew game"
    )
    return frames, result, outcome, subject


def _arena(w: Words, owner: Owner, opp: str):
    mine, theirs = w.rng.sample(w.pick("sides", SIDES), 2)
    hud = [
        f"HP {{n}}\nAmmo {{m}}/90\n{{k}} credits\nRound {{m}}\nTeam {mine} (you)",
        f"HP {{n}}\nKills {{m}}\nTeam {mine} {{m}} - {{n}} Team {theirs}\nObjective captured",
        f"Respawn in 0:{{m}}\nTeam {mine} (you)\nRound {{m}}",
    ]
    outcome = w.pick("arena_outcome", ("win", "loss", "win", "loss", "draw"))
    lines = {
        "win": (("VICTORY", "you"), ("Your team won", "you"), (f"Team {mine} wins", "you"), ("Victory!", "you")),
        "loss": (("DEFEAT", "you"), ("Your team lost", "you"), (f"Team {theirs} wins", "other"), ("Defeat", "you")),
        "draw": (("DRAW", ""), ("Match drawn", ""), ("Tie game", "")),
    }[outcome]
    line, subject = w.pick(f"arena_{outcome}", lines)
    return hud[: w.number(2, 3)], f"{line}\nFinal score {w.number(5, 13)}-{w.number(5, 13)}\nContinue", outcome, subject


def _racing(w: Words, owner: Owner, opp: str):
    hud = [f"Lap {lap}/3\nPos {{m}}/12\n{{k}} km/h\nBest 1:{{m}}.{{k}}" for lap in (1, 2, 3)]
    place_no = w.rng.choice((1, 1, 2, 3, 4, 6, 9))
    ordinal = {1: "1st", 2: "2nd", 3: "3rd"}.get(place_no, f"{place_no}th")
    line = w.pick(
        "race_result",
        ("You finished {o}", "{o} place!", "Race complete: {o}", "FINISH\nYou came {o}", "Final position: {o}"),
    ).format(o=ordinal)
    outcome = "win" if place_no == 1 else "loss"
    return hud, f"{line}\nTotal time 4:{w.number(10, 59)}.{w.number(100, 999)}\nContinue", outcome, "you"


def _cards(w: Words, owner: Owner, opp: str):
    frames = [
        f"Your hand\nDeck {{n}}\nOpponent: {opp}\nYour turn\nDraw pile {{m}}\nVictory points {{m}}",
        f"{opp}'s turn\nDiscard\nDraw pile {{m}}\nOpponent: {opp}",
    ]
    outcome = w.pick("cards_outcome", ("win", "loss", "draw"))
    lines = {
        "win": (("You win the game!", "you"), (f"{opp} loses", "other"), ("Game over: you win", "you")),
        "loss": ((f"{opp} wins the game", "other"), ("Game over: you lose", "you"), ("You lost", "you")),
        "draw": (("It's a tie", ""), ("Game tied", ""), ("Draw", "")),
    }[outcome]
    line, subject = w.pick(f"cards_{outcome}", lines)
    return frames, f"{line}\nPlay again\nBack to lobby", outcome, subject


def _sports(w: Words, owner: Owner, opp: str):
    home, away = w.brand() + " FC", w.brand() + " United"
    frames = [
        f"You: {home}\n{home} {{m}} - {{n}} {away}\n1st half {{m}}:{{n}}",
        f"{home} {{m}} - {{n}} {away}\n2nd half {{m}}:{{n}}\nSubstitution",
    ]
    outcome = w.pick("sports_outcome", ("win", "loss", "draw"))
    a, b = w.number(1, 4), w.number(0, 3)
    lines = {
        "win": ((f"FULL TIME\nYou win {a + 1}-{b}", "you"), (f"{home} win {a + 1}-{b}", "you")),
        "loss": ((f"FULL TIME\n{away} win {a + 1}-{b}", "other"), (f"You lost {b}-{a + 1}", "you")),
        "draw": ((f"FULL TIME\nDraw {a}-{a}", ""), (f"Match drawn {a}-{a}", "")),
    }[outcome]
    line, subject = w.pick(f"sports_{outcome}", lines)
    return frames, f"{line}\nMatch stats\nContinue", outcome, subject


def _trivia(w: Words, owner: Owner, opp: str):
    frames = [
        f"Question {{m}}/10\nYou: {{k}} pts\n{opp}: {{k}} pts\nA. Lisbon\nB. Porto\nC. Faro",
        f"Question {{m}}/10\n{opp} answered\nYou: {{k}} pts\nTime 0:{{m}}",
    ]
    outcome = w.pick("trivia_outcome", ("win", "loss", "draw"))
    lines = {
        "win": (("You won the quiz!", "you"), ("You win!", "you"), (f"{opp} lost", "other")),
        "loss": ((f"{opp} wins!", "other"), ("You lost this one", "you"), (f"{opp} won the quiz", "other")),
        "draw": (("It's a tie!", ""), ("Tied game", "")),
    }[outcome]
    line, subject = w.pick(f"trivia_{outcome}", lines)
    return frames, f"{line}\nRematch\nHome", outcome, subject


_GENRES = {"board": _board, "arena": _arena, "racing": _racing, "cards": _cards, "sports": _sports, "trivia": _trivia}


# --- a book finished --------------------------------------------------------------------------------------
READERS = ("Books", "Kindle", "Kobo", "Libby", "Readwise Reader", "Foliate", "Calibre", "Moon+ Reader")
BOOK_WORDS = ("Salt", "Harbour", "Lantern", "Orchard", "Winter", "Glass", "Ferry", "Quarry", "Meadow", "Tide")
PROSE = (
    "By the time the ferry reached the island the storm had lost most of its strength and the harbour lights were on",
    "She read the letter twice before she understood that the shipment had been delivered to the wrong village",
    "Nobody in the valley remembered who had won the race that summer, only that the river had flooded afterwards",
    "The council approved the new bridge in the spring, but it was years before anyone crossed it on foot",
    "He had failed the examination once already and was determined that the second attempt would be different",
)
FINISHED = (
    "You finished {book}",
    "Marked as finished",
    "Book completed",
    "100% · Finished",
    "You've finished {book}!",
    "Finished reading {book}",
)


def reading(w: Words, owner: Owner) -> Activity:
    """Reading the last chapters of a book until the reader says it is finished (the prose reports other
    people's outcomes; they are the story's, not the owner's)."""
    app = w.pick("reader", READERS)
    book = f"The {w.pick('book_word', BOOK_WORDS)} {w.pick('book_word2', ('Road', 'Keeper', 'Year', 'House', 'Line'))}"
    p = place(w, (NATIVE, NATIVE, PHONE), brand=app)
    if p.kind == NATIVE:
        p.app = app
    chapters = [
        Phase(
            p.at(book),
            p.frame(w, [f"Chapter {c}", *w.sample("prose", PROSE, 2), "Location {k} of 5200", f"{80 + c}% read"]),
            w.between(240, 900),
            every=20,
        )
        for c in range(w.number(14, 17), 19)
    ][: w.number(1, 3)]
    line = w.pick("finished", FINISHED).format(book=book)
    chapters.append(
        Phase(
            p.at(book), p.frame(w, [line, "Rate this book", "Recommended for you"]), w.between(20, 90), part="outcome"
        )
    )
    return Activity("reading", "reading.book", "success", "positive", line, chapters, surface_kind=p.kind)


# --- a video uploaded -------------------------------------------------------------------------------------
UPLOAD_DONE = (
    "Upload complete",
    "Your video is now live",
    "Published",
    "Video published successfully",
    "Upload finished. Processing done",
    "Your episode has been published",
)
UPLOAD_FAILED = ("Upload failed: network error", "Processing failed", "Publishing failed. Try again", "Upload failed")


def media(w: Words, owner: Owner) -> Activity:
    """A video or podcast episode uploaded and published from a creator's studio page or app."""
    studio = w.brand() + w.pick("studio_tail", (" Studio", " Creator", " Podcasts", " Video", ""))
    p = place(w, (BROWSER, BROWSER, NATIVE), brand=studio)
    title = w.pick(
        "clip",
        ("Spring garden tour", "Episode 14: Tides", "Bread timelapse", "Trip vlog day 3", "Interview with a beekeeper"),
    )
    failed = w.chance(0.2)
    line = w.pick("upload_failed" if failed else "upload_done", UPLOAD_FAILED if failed else UPLOAD_DONE)
    phases = [
        Phase(
            p.at("Upload", "upload"),
            p.frame(w, ["Upload video", f"{title}.mp4", "Uploading {n}%", "Title", title, "Visibility: Public"]),
            w.between(120, 600),
        ),
        Phase(
            p.at("Details", "upload/details"),
            p.frame(w, ["Processing {n}%", "Thumbnail", "Description", "Tags", w.pick("publish", ("Publish", "Save"))]),
            w.between(60, 300),
        ),
        Phase(
            p.at("Channel content", "content"),
            p.frame(w, [line, title, "Views 0", "Comments 0"]),
            w.between(20, 90),
            part="outcome",
        ),
    ]
    outcome, polarity = ("failure", "negative") if failed else ("success", "positive")
    return Activity("media", "media.upload", outcome, polarity, line, phases, surface_kind=p.kind)


# --- a workout recorded -----------------------------------------------------------------------------------
WORKOUTS = ("Outdoor run", "Indoor ride", "Rowing", "Walk", "Swim", "HIIT")
WORKOUT_DONE = (
    "Workout complete",
    "Run saved",
    "Great job! Workout finished",
    "Activity saved",
    "Session complete",
    "Workout saved to your log",
)


def workout(w: Words, owner: Owner) -> Activity:
    """A workout tracked live (on a phone mirror or a companion app) and saved at the end."""
    app = w.brand() + w.pick("fitness_tail", (" Fit", " Run", " Active", " Health", ""))
    p = place(w, (PHONE, PHONE, NATIVE), brand=app)
    kind = w.pick("workout", WORKOUTS)
    live = p.frame(w, [kind, "{n}.{m} km", "Pace 5'{m}\"", "Heart rate {k} bpm", "Pause", "End workout"])
    line = w.pick("workout_done", WORKOUT_DONE)
    phases = [
        Phase(p.at(kind), live, w.between(600, 2400), every=20),
        Phase(
            p.at(kind),
            p.frame(
                w, [line, f"{kind} · {w.number(3, 15)}.{w.number(0, 9)} km", f"{w.number(180, 900)} kcal", "Share"]
            ),
            w.between(20, 90),
            part="outcome",
        ),
    ]
    return Activity("fitness", "fitness.workout", "success", "positive", line, phases, surface_kind=p.kind)


# --- machines in domains no rule names (a generic family) -------------------------------------------------
MACHINES = (  # (the window's activity noun phrase, its head noun, a reading, a fault)
    ("Studio kiln", "kiln", "Temp {k} F", "thermocouple open"),
    ("Workshop plotter", "plotter", "Pen {m} of 8", "paper jam"),
    ("Egg incubator", "incubator", "Humidity {n}%", "heater fault"),
    ("Fermentation chamber", "chamber", "Gravity 1.0{n}", "sensor lost"),
    ("Garden irrigation", "irrigation", "Zone {m} flow {k} L", "valve stuck"),
    ("Embroidery machine", "machine", "Stitch {k}", "thread break"),
    ("Greenhouse", "greenhouse", "CO2 {k} ppm", "vent motor fault"),
    ("Loom", "loom", "Pick {k}", "warp tension low"),
    ("Cheese cave", "cave", "RH {n}%", "compressor fault"),
    ("Aquarium doser", "doser", "Dose {m} ml", "pump stall"),
)
MACHINE_DONE = ("Cycle complete", "Program finished", "Finished successfully", "Job complete", "Run completed")
MACHINE_FAILED = ("Error E{m}: {fault}", "Stopped: {fault}", "Fault: {fault}. Halted", "Aborted: {fault}")


def machine(w: Words, owner: Owner) -> Activity:
    """A machine's controller program in an unfamiliar domain: a program runs, finishes or faults (and may be
    fixed and run again). The family a person expects names the activity generically: ``task.<noun>``."""
    phrase, noun, reading, fault = w.pick("machine", MACHINES)
    app = w.brand() + w.pick("machine_tail", ("Link", " Control", "OS", " Hub", "mate"))
    kind = w.rng.choice((NATIVE, NATIVE, BROWSER))
    p = place(w, (kind,), brand=app)
    if kind == NATIVE:
        p.app = app
    surface = p.at(phrase)
    program = f"Program: {w.pick('program', ('Cone 6 glaze', 'Batch 12', 'Profile A', 'Night cycle', 'Pattern 4'))}"
    running = f"{program}\nStep {{m}}\n{reading}\nElapsed 0:{{m}}"
    failed = w.chance(0.3)
    line = w.pick("machine_failed" if failed else "machine_done", MACHINE_FAILED if failed else MACHINE_DONE)
    line = line.format(fault=fault, m=w.number(1, 9))
    phases = [
        Phase(surface, running, w.between(300, 1500), every=15),
        Phase(surface, f"{program}\n{line}", w.between(30, 150), every=15, part="outcome"),
    ]
    act = Activity(
        "machines",
        f"task.{noun}",
        "failure" if failed else "success",
        "negative" if failed else "positive",
        line,
        phases,
        surface_kind=kind,
    )
    if failed and w.chance(0.5):
        act.phases.append(Phase(surface, running.replace("Step", "Restart step"), w.between(300, 900), every=15))
        done = w.pick("machine_done", MACHINE_DONE)
        act.phases.append(Phase(surface, f"{program}\n{done}", w.between(30, 120), every=15, part="outcome"))
        act.outcome, act.polarity, act.evidence = "resolved", "positive", done
        act.features.add("fixed_later")
    return act
