"""Activities of work and study: software (CI pipelines, test runs, installs, deploys, a failure fixed later),
calls (decisions made or put off, commitments, captions), messages sent, forms and applications (answered the
next morning), lessons with their quizzes."""

from __future__ import annotations

from screen.imitation.generator.model import BROWSER, NATIVE, PHONE, Activity, Phase, Said, Surface
from screen.imitation.generator.people import (
    DECISIONS,
    DEFERRALS,
    OTHER_COMMITMENTS,
    OWN_COMMITMENTS,
    PROPOSALS,
    SMALL_TALK,
    Owner,
    fill,
)
from screen.imitation.generator.places import place
from screen.imitation.generator.vocab import Words

REPOS = (
    "heron",
    "tern",
    "quarry",
    "loom",
    "satchel",
    "pylon",
    "marmot",
    "kettle",
    "ferrule",
    "gasket",
    "lantern",
    "trellis",
    "bobbin",
    "sextant",
    "orrery",
    "rivet",
    "anvil",
    "cairn",
    "tundra",
    "wicket",
)
MODULES = ("dates", "parser", "billing", "auth", "export", "sync", "cache", "routes", "models", "search", "queue")
TERMINALS = (
    "Terminal",
    "iTerm2",
    "Warp",
    "kitty",
    "Alacritty",
    "WezTerm",
    "Ghostty",
    "Konsole",
    "Windows Terminal",
    "GNOME Terminal",
    "Tabby",
    "Hyper",
    "Rio",
    "foot",
)
EDITORS = ("Code", "Cursor", "Zed", "PyCharm", "Sublime Text", "Neovim", "IntelliJ IDEA", "Nova", "Helix", "Kate")
TEST_RUNS = (  # (command, passing line, failing lines)
    (
        "pytest -q",
        "{p} passed in {t}s",
        "FAILED tests/test_{mod}.py::test_{mod}_edge - AssertionError\n{f} failed, {p} passed in {t}s",
    ),
    ("npm test", "Tests:       {p} passed, {p} total", "Tests:       {f} failed, {p} passed, {q} total"),
    ("cargo test", "test result: ok. {p} passed; 0 failed", "test result: FAILED. {p} passed; {f} failed"),
    ("go test ./...", "ok  \t{repo}/{mod}\t0.{t}s", "--- FAIL: Test{Mod}Edge (0.00s)\nFAIL\t{repo}/{mod}\t0.{t}s"),
    ("make check", "All {p} checks passed", "make: *** [check] Error 1\n{f} checks failed"),
    ("bundle exec rspec", "{p} examples, 0 failures", "{p} examples, {f} failures"),
    (
        "mvn test",
        "Tests run: {p}, Failures: 0, Errors: 0\nBUILD SUCCESS",
        "Tests run: {p}, Failures: {f}\nBUILD FAILURE",
    ),
    ("dotnet test", "Passed!  - Failed: 0, Passed: {p}", "Failed!  - Failed: {f}, Passed: {p}"),
    ("tox -e py311", "py311: OK ({t}s)\ncongratulations :)", "py311: FAIL code 1 ({t}s)\nevaluation failed :("),
)
INSTALLS = (  # (command, success, failure)
    ("pip install {pkg}", "Successfully installed {pkg}-{v}", "error: failed building wheel for {pkg}"),
    (
        "npm install {pkg}",
        "added {p} packages in {t}s",
        "npm ERR! code ERESOLVE\nnpm ERR! could not resolve dependency",
    ),
    ("brew install {pkg}", "🍺  {pkg} {v} was successfully installed", "Error: {pkg}: failed to download resource"),
    ("cargo install {pkg}", "Installed package `{pkg} v{v}`", "error: failed to compile `{pkg} v{v}`"),
    ("apt install {pkg}", "Setting up {pkg} ({v}) ...\nDone.", "E: Unable to locate package {pkg}"),
    ("gem install {pkg}", "Successfully installed {pkg}-{v}\n1 gem installed", "ERROR:  Error installing {pkg}"),
)
PACKAGES = ("tokenizers", "pillow", "ripgrep", "protobuf", "libvips", "grpcio", "sharp", "esbuild", "psycopg", "lxml")
DEPLOYS = (  # (command, success, failure)
    ("./deploy.sh production", "Deployment successful: {repo} v{v} is live", "Deploy failed: health check timed out"),
    ("fly deploy", "v{p} deployed successfully", "Error: release command failed"),
    (
        "kubectl rollout status deploy/{repo}",
        'deployment "{repo}" successfully rolled out',
        "error: deployment exceeded its progress deadline",
    ),
    ("cap production deploy", "Deploy finished: {repo} released", "Deploy aborted: migrations failed"),
)
PIPELINE_PASSED = (
    "Pipeline {n} passed",
    "Build #{n} succeeded",
    "Workflow run {n}: success",
    "#{n} passed",
    "Run {n} completed successfully",
)
PIPELINE_FAILED = (
    "Pipeline {n} failed",
    "Build #{n} failed",
    "Workflow run {n}: failure",
    "#{n} failed",
    "Run {n} failed",
)
JOBS = ("lint", "unit-tests", "integration", "build-image", "typecheck", "e2e", "docs", "package")


def software(w: Words, owner: Owner) -> Activity:
    """A CI pipeline in a browser, or tests, an install or a deploy in a terminal; a failure may be fixed later
    in the day (one activity, resolved)."""
    kind = w.pick("software_kind", ("ci", "ci", "test", "test", "install", "deploy"))
    repo = w.pick("repo", REPOS)
    fixed = w.chance(0.4)
    failing = fixed or w.chance(0.35)
    if kind == "ci":
        return _pipeline(w, repo, failing, fixed)
    return _terminal(w, kind, repo, failing, fixed)


def _pipeline(w: Words, repo: str, failing: bool, fixed: bool) -> Activity:
    brand = w.brand() + w.pick("ci_tail", (" CI", " Builds", " Pipelines", ""))
    p = place(w, (BROWSER,), brand=brand)
    n = w.number(100, 9000)
    history = w.chance(0.6)
    job = w.pick("job", JOBS)

    def page(run: int, word_list: tuple, status: str) -> tuple[Surface, str, str]:
        head = w.pick(f"pipeline_{status}", word_list).format(n=run)
        jobs = [f"{j} {'passed' if status == 'passed' or j != job else 'failed'}" for j in w.sample("job", JOBS, 3)]
        lines = [f"{repo} / main", head, *jobs]
        if history:
            old = [
                f"{run - i} main {w.pick('old_status', ('passed', 'failed', 'passed'))} {i * w.number(1, 3)}h ago"
                for i in (1, 2, 3)
            ]
            lines += ["Recent pipelines", *old]
        return p.at(f"Pipeline {run} · {repo}", f"{repo}/pipelines/{run}"), p.frame(w, lines), head

    running = [f"{repo} / main", f"Pipeline {n} running", *[f"{j} running" for j in w.sample("job", JOBS, 2)]]
    phases = [Phase(p.at(f"Pipeline {n} · {repo}", f"{repo}/pipelines/{n}"), p.frame(w, running), w.between(60, 300))]
    surface, text, head = page(n, PIPELINE_FAILED if failing else PIPELINE_PASSED, "failed" if failing else "passed")
    phases.append(Phase(surface, text, w.between(40, 240), part="outcome"))
    act = Activity(
        "software",
        "software.ci",
        "failure" if failing else "success",
        "negative" if failing else "positive",
        head,
        phases,
        surface_kind=BROWSER,
    )
    if history:
        act.distractors.add("history")
    if fixed:
        _fix(w, act, repo, lambda: page(n + 1, PIPELINE_PASSED, "passed"))
    return act


def _terminal(w: Words, kind: str, repo: str, failing: bool, fixed: bool) -> Activity:
    term = w.pick("terminal", TERMINALS)
    surface = Surface(term, f"{w.pick('shell', ('zsh', 'bash', 'fish'))} — ~/{repo}", "", NATIVE)
    values = {
        "p": w.number(8, 400),
        "f": w.number(1, 6),
        "q": 0,
        "t": w.number(1, 9),
        "repo": repo,
        "mod": w.pick("module", MODULES),
        "pkg": w.pick("package", PACKAGES),
        "v": f"{w.number(0, 9)}.{w.number(1, 30)}.{w.number(0, 9)}",
    }
    values["q"] = values["p"] + values["f"]
    values["Mod"] = values["mod"].title()
    table = {"test": ("test_run", TEST_RUNS), "install": ("install", INSTALLS), "deploy": ("deploy", DEPLOYS)}[kind]
    command, good, bad = w.pick(*table)
    family = {"test": "software.test", "install": "software.install", "deploy": "software.deploy"}[kind]
    command = command.format(**values)

    def run(result: str) -> tuple[Surface, str, str]:
        out = result.format(**values)
        progress = w.pick("progress", ("Collecting", "Compiling", "Resolving", "Running", "Building"))
        return surface, f"$ {command}\n{progress} {values['repo']}\n{out}", out.split("\n")[-1]

    start_text = f"$ {command}\n{w.pick('progress', ('Collecting', 'Compiling', 'Resolving', 'Running'))} ..."
    phases = [Phase(surface, start_text, w.between(20, 120))]
    s, text, head = run(bad if failing else good)
    phases.append(Phase(s, text, w.between(30, 150), part="outcome"))
    act = Activity(
        "software",
        family,
        "failure" if failing else "success",
        "negative" if failing else "positive",
        head,
        phases,
        surface_kind=NATIVE,
    )
    if fixed:
        _fix(w, act, repo, lambda: run(good))
    return act


def _fix(w: Words, act: Activity, repo: str, passing) -> None:
    """Edit for a while (maybe hours), then the same thing passes: one activity, resolved."""
    editor = w.pick("editor", EDITORS)
    mod = w.pick("module", MODULES)
    code = f"{repo}/{mod}.py\ndef {mod}_edge(value):\n    return normalise(value)\nLn {{n}}, Col {{m}}"
    act.phases.append(
        Phase(Surface(editor, f"{mod}.py — {repo}", "", NATIVE), code, w.between(600, 5400), every=20, part="body")
    )
    surface, text, head = passing()
    act.phases.append(Phase(surface, text, w.between(40, 200), part="outcome"))
    act.outcome, act.polarity, act.evidence = "resolved", "positive", head
    act.features.add("fixed_later")


# --- calls -------------------------------------------------------------------------------------------------
CALL_APPS = ("Parley", "Huddle", "Confer", "Rendez", "Gather", "Palaver", "Colloquy", "Tandem", "Whereby", "Jitsi Meet")
CALL_TOPICS = (
    "offsite planning",
    "vendor review",
    "{repo} sync",
    "hiring loop",
    "budget check-in",
    "launch review",
    "support case {ref}",
    "design crit",
    "quarterly planning",
    "onboarding",
    "retro",
    "1:1",
)
CALL_ENDS = (
    "You left the meeting",
    "Call ended",
    "The host has ended this meeting",
    "Meeting ended",
    "You left the call",
    "Thanks for joining",
    "",
)
ASSISTANT_HEADERS = ("AI Companion", "AI Assistant", "Ask AI", "Meeting copilot", "{app} AI", "AI notes", "Assistant")
ASSISTANT_CLAIMS = (
    "Summary so far: the team agreed on {option}",
    "Decision: {option} approved",
    "Action item: {person} signs the contract",
    "Suggested next step: book {option}",
    "Budget approved: {money}",
    "Everyone confirmed {option}",
)


def meeting(w: Words, owner: Owner) -> Activity:
    """A video call: others on the output device, the owner on the microphone (and in captions); a decision
    made or put off; commitments near the end; sometimes an assistant pane inventing a decision."""
    app = w.pick("call_app", CALL_APPS)
    kind = w.rng.choice((NATIVE, NATIVE, BROWSER, PHONE))
    topic = w.pick("call_topic", CALL_TOPICS).format(repo=w.pick("repo", REPOS), ref=w.reference())
    title = topic[:1].upper() + topic[1:]
    if kind == BROWSER:
        p = place(w, (BROWSER,), brand=app)
        surface = p.at(title, f"{w.reference().lower()}")
    elif kind == PHONE:
        p = place(w, (PHONE,), brand=app)
        surface = p.at()
    else:
        surface = Surface(app, f"{title} — {app}", "", NATIVE)
    others = [w.person() for _ in range(w.number(1, 4))]
    named = w.chance(0.75)  # ScreenPipe named the speakers (a voice it was taught)
    own_name = w.pick("own_speaker", (owner.first, owner.display_name, ""))
    decided = w.chance(0.45)
    ui = [
        title,
        f"Participants ({len(others) + 1})",
        "Mute",
        w.pick("video", ("Stop video", "Camera off")),
        "Share screen",
        w.pick("leave", ("Leave", "Leave call", "End")),
        "Recording",
    ]
    people = [o.split()[0] for o in others]
    said, audio_plan = _conversation(w, owner, others, named, own_name, decided, people)
    minutes = w.between(8, 40)
    captions = w.chance(0.3)
    assistant = w.chance(0.3)
    forbidden: list[str] = []
    pane: list[str] = []
    if assistant:
        header = w.pick("assistant_header", ASSISTANT_HEADERS).format(app=app)
        claim = w.pick("assistant_claim", ASSISTANT_CLAIMS).format(
            option=w.pick("invented", ("Harbor Hall", "the Lisbon venue", "plan C", "the premium tier")),
            person=others[0].split()[0],
            money=w.money(2000, 9000),
        )
        pane = [header, claim]
        forbidden.append(claim.split(": ", 1)[-1])
    phases = _call_phases(w, surface, ui, audio_plan, minutes * 60, captions, pane, owner, own_name)
    end_line = w.pick("call_end", CALL_ENDS)
    if end_line:
        phases.append(
            Phase(
                surface,
                "\n".join([title, end_line, w.pick("rejoin", ("Rejoin", "Return to home"))]),
                w.between(10, 40),
                part="outcome",
            )
        )
    outcome, polarity = ("decided", "positive") if decided else ("no_decision", "neutral")
    act = Activity(
        "meetings", "meeting.call", outcome, polarity, title, phases, said=said, forbidden=forbidden, surface_kind=kind
    )
    if assistant:
        act.distractors.add("assistant")
    act.distractors.add("speech")
    return act


def _conversation(w: Words, owner: Owner, others: list[str], named: bool, own_name: str, decided: bool, people):
    """What is said, in order: (text, speaker name ScreenPipe gives, device, role, speaker the event names)."""
    lines = []
    for _ in range(w.number(2, 5)):
        lines.append(("other", w.pick("small_talk", SMALL_TALK)))
    for _ in range(w.number(1, 3)):
        lines.append(("other", fill(w, w.pick("proposal", PROPOSALS), people)))
    if w.chance(0.5):
        lines.append(("own", fill(w, w.pick("proposal", PROPOSALS), people)))
    lines.append(
        (
            "other" if w.chance(0.6) else "own",
            fill(w, w.pick("decision", DECISIONS) if decided else w.pick("deferral", DEFERRALS), people),
        )
    )
    for _ in range(w.number(0, 2)):
        lines.append(("other", fill(w, w.pick("other_commitment", OTHER_COMMITMENTS), people)))
    lines.append(("own", fill(w, w.pick("own_commitment", OWN_COMMITMENTS), people)))
    if w.chance(0.5):
        lines.append(("other", w.pick("bye", ("Thanks all, talk soon", "Cheers everyone", "Bye for now"))))
    said, plan, heard = [], [], set()
    for who, text in lines:
        if text in heard:
            continue  # nobody repeats a line word for word
        heard.add(text)
        if who == "own":
            plan.append((text, own_name, "Input", owner.first))
            said.append(Said(text, "", "user_authored"))
        else:
            person = w.rng.choice(others)
            plan.append((text, person if named else "", "Output", person))
            said.append(Said(text, person if named else "", "other_person"))
    return said, plan


def _call_phases(w, surface, ui, audio_plan, seconds, captions, pane, owner, own_name) -> list[Phase]:
    """The call's frames in a few phases, the speech spread over them (the last words near the end)."""
    count = max(2, min(5, len(audio_plan) // 3))
    step = seconds / count
    phases = []
    per = -(-len(audio_plan) // count)
    for i in range(count):
        chunk = audio_plan[i * per : (i + 1) * per]
        gap = step / (len(chunk) + 1)
        audio = [(gap * (j + 1), text, speaker, device) for j, (text, speaker, device, _) in enumerate(chunk)]
        lines = list(ui) + ["00:{m}:{n}"]
        if captions and chunk:
            text, _, device, person = chunk[-1]
            who = person.split()[0] if device == "Output" else w.pick("caption_self", ("You", owner.first))
            lines.append(f"{who}: {text}")
        if pane and i >= count // 2:
            lines += pane
        phases.append(Phase(surface, "\n".join(lines), step, every=15, audio=audio))
    return phases


# --- messages ----------------------------------------------------------------------------------------------
CHAT_APPS = ("Signal", "Telegram", "WhatsApp", "Messages", "Element", "Threema", "Wire", "Beeper", "Session")
MAIL_COMPOSE = ("Mail", "Outlook", "Thunderbird", "Spark", "Mimestream", "Proton Mail", "Superhuman", "Fastmail")
SENT = ("Sent", "Delivered", "Read {time}", "Sent just now", "✓✓ Delivered")
MAIL_SENT = ("Message sent", "Your message has been sent", "Email sent", "Sent. Undo", "Your message to {to} was sent")
CHAT_LINES = (
    "are we still on for {day}?",
    "did you see the match last night? we won 3-1!",
    "the payment went through btw",
    "my order finally got delivered",
    "can you send me the address",
    "running 10 min late",
    "I booked the table",
    "thanks for yesterday!",
    "the build failed again lol",
    "call me when you're free",
)
REPLIES = (
    "Sounds good, see you {day}",
    "Yes, sending it now",
    "Ha, nice one",
    "No worries, take your time",
    "Perfect, thank you",
    "I'll call you after work",
    "Great news!",
    "Let me check and get back to you",
)


def messaging(w: Words, owner: Owner) -> Activity:
    """A chat message or an email written and sent (received messages around it report other people's news)."""
    friend = w.person()
    words = {
        "day": w.pick("weekday", ("Friday", "Saturday", "tomorrow")),
        "to": friend,
        "time": f"{w.number(8, 22)}:{w.number(10, 59)}",
    }
    if w.chance(0.55):
        app = w.pick("chat_app", CHAT_APPS)
        p = place(w, (NATIVE, NATIVE, PHONE, BROWSER), brand=app)
        theirs = [w.pick("chat_line", CHAT_LINES).format(**words) for _ in range(2)]
        reply = w.pick("reply", REPLIES).format(**words)
        thread = [friend, w.pick("presence", ("Active now", "online", "last seen today")), *theirs]
        sent = w.pick("sent", SENT).format(**words)
        phases = [
            Phase(p.at(friend), p.frame(w, [*thread, "Type a message"]), w.between(40, 200)),
            Phase(p.at(friend), p.frame(w, [*thread, reply + "|", "Type a message"]), w.between(20, 90)),
            Phase(
                p.at(friend), p.frame(w, [*thread, reply, sent, "Type a message"]), w.between(20, 90), part="outcome"
            ),
        ]
        act = Activity("messaging", "communication.chat", "confirmed", "positive", sent, phases, surface_kind=p.kind)
        act.forbidden += theirs
        return act
    app = w.pick("mail_compose", MAIL_COMPOSE)
    subject = w.pick(
        "subject",
        (
            "Re: {day} plans",
            "Invoice question",
            "Quick update",
            "Photos from the trip",
            "Re: the lease",
            "Fwd: tickets",
        ),
    ).format(**words)
    surface = Surface(app, f"{subject} — {app}", "", NATIVE)
    body = w.pick("reply", REPLIES).format(**words)
    sent = w.pick("mail_sent", MAIL_SENT).format(**words)
    phases = [
        Phase(surface, f"New message\nTo: {friend}\nSubject: {subject}\n{body}\nSend", w.between(60, 400)),
        Phase(
            Surface(app, f"Inbox — {app}", "", NATIVE),
            f"Inbox\n{sent}\n{w.person()}\nWeekly digest",
            w.between(10, 40),
            part="outcome",
        ),
    ]
    return Activity(
        "messaging", "communication.email", "confirmed", "positive", sent.split(".")[0], phases, surface_kind=NATIVE
    )


# --- forms and applications --------------------------------------------------------------------------------
FORMS = (  # (what, title of the first step, sender kind)
    ("job application", "Apply: {role}", "careers"),
    ("rental application", "Rental application: {street}", "lettings"),
    ("permit application", "Parking permit application", "council"),
    ("grant application", "{brand} community grant", "grants"),
    ("school enrolment", "Enrolment form {year}", "admissions"),
    ("volunteer registration", "Volunteer sign-up", "volunteering"),
    ("visa application", "Electronic travel authorisation", "immigration"),
    ("membership application", "Become a member", "membership"),
)
ROLES = ("Data analyst", "Junior designer", "Warehouse lead", "Line cook", "QA engineer", "Barista", "Lab technician")
SUBMITTED = (
    "Application submitted",
    "Thank you for applying!",
    "We've received your application",
    "Your application has been sent",
    "Submission successful. Reference {ref}",
    "Application received\nReference {ref}",
    "Thanks, {first}. Your form was submitted",
    "All done: application {ref} submitted",
)
ACCEPTED = (
    "We'd like to invite you to an interview",
    "Your application has been approved",
    "Congratulations, you've been accepted",
    "Good news: your application was successful",
    "You have been shortlisted",
    "Your application {ref} is approved",
)
REJECTED = (
    "Unfortunately, we won't be moving forward with your application",
    "Your application was unsuccessful",
    "We regret to inform you that your application has been declined",
    "After careful consideration we will not be proceeding with your application",
    "Your application {ref} was not approved",
    "We are unable to offer you a place",
)


def form(w: Words, owner: Owner) -> Activity:
    """A multi-step form submitted; sometimes the answer comes by email the next morning."""
    what, title, sender = w.pick("form", FORMS)
    org = w.brand() + w.pick("org_tail", (" Ltd", " Council", " Group", " Foundation", " Academy", ""))
    p = place(w, (BROWSER, BROWSER, NATIVE, PHONE), brand=org)
    role = w.pick("role", ROLES)
    first_title = title.format(role=role, street=f"{w.number(2, 90)} Elm Row", brand=org, year=w.number(2026, 2027))
    ref = w.reference()
    steps = [
        [
            "Step 1 of 4",
            "Personal details",
            f"First name {owner.first}",
            f"Last name {owner.last}",
            f"Email {owner.email}",
        ],
        [
            "Step 2 of 4",
            w.pick("step2", ("Experience", "Household", "Vehicle details", "About your project", "Education")),
            "Add another",
            "Save and continue",
        ],
        [
            "Step 3 of 4",
            "Upload documents",
            w.pick("upload", ("CV.pdf uploaded", "ID scan.jpg", "Proof of address.pdf")),
            "Continue",
        ],
        [
            "Step 4 of 4",
            "Review your application",
            "Declaration",
            "I confirm the above is true",
            w.pick("submit", ("Submit application", "Submit", "Send application")),
        ],
    ]
    phases = [
        Phase(p.at(first_title, f"apply/{i + 1}"), p.frame(w, step), w.between(60, 360)) for i, step in enumerate(steps)
    ]
    result = w.pick("submitted", SUBMITTED).format(ref=ref, first=owner.first)
    phases.append(
        Phase(
            p.at("Confirmation", "apply/done"),
            p.frame(w, [*result.split("\n"), f"Reference {ref}"]),
            w.between(30, 120),
            part="outcome",
        )
    )
    act = Activity(
        "forms", "forms.application", "confirmed", "positive", result.split("\n")[0], phases, surface_kind=p.kind
    )
    if w.chance(0.45):
        good = w.chance(0.5)
        answer = w.pick("accepted" if good else "rejected", ACCEPTED if good else REJECTED).format(ref=ref)
        from screen.imitation.generator.commerce import _email

        surface, text = _email(w, owner, org, f"Your {what} ({ref})", [answer, f"Kind regards, {org} {sender}"])
        act.later = [Phase(surface, text, w.between(40, 180), part="outcome")]
        act.later_outcome, act.later_polarity = ("accepted", "positive") if good else ("declined", "negative")
        act.later_evidence = answer
        act.features.add("later_outcome")
    return act


# --- lessons and quizzes -----------------------------------------------------------------------------------
TOPICS = (
    "Fractions",
    "Spanish past tense",
    "Intro to statistics",
    "Watercolour basics",
    "Knots for sailing",
    "Python loops",
    "First aid",
    "Music theory: scales",
    "Bookkeeping",
    "Soil science",
    "Typography",
)
QUIZ_PASSED = (
    "Quiz passed",
    "You passed! Score {s}/10",
    "Score {s}/10 · Passed",
    "Congratulations, you passed the quiz",
    "Quiz complete: {s}/10. Passed",
    "Well done, you passed with {s}0%",
)
QUIZ_FAILED = (
    "Quiz failed: {s}/10",
    "You did not pass this time ({s}/10)",
    "Score {s}/10 · Not passed",
    "Unsuccessful attempt: {s}/10. Try again",
    "Quiz not passed. You need 8/10",
)
LESSON_DONE = (
    "Lesson complete",
    "Lesson {i} completed",
    "You finished this lesson",
    "Module completed",
    "Course completed! Certificate ready",
)


def lesson(w: Words, owner: Owner) -> Activity:
    """A lesson (video or text) and, often, its quiz; the result is the quiz's (or the lesson's completion)."""
    school = w.brand() + w.pick("school_tail", (" Academy", " Learn", " School", " Courses", " Tutor", ""))
    p = place(w, (BROWSER, BROWSER, NATIVE, PHONE), brand=school)
    topic = w.pick("topic", TOPICS)
    i, total = w.number(2, 9), w.number(10, 16)
    phases = [
        Phase(
            p.at(f"Lesson {i}: {topic}", f"course/lesson-{i}"),
            p.frame(
                w,
                [
                    f"Lesson {i} of {total}: {topic}",
                    w.pick("player", ("▶ 04:{m} / 12:30", "Transcript", "Reading time 8 min")),
                    "Notes",
                    "Next lesson",
                    f"Progress {w.number(10, 80)}%",
                ],
            ),
            w.between(240, 1200),
        ),
    ]
    if w.chance(0.7):
        passed = w.chance(0.65)
        s = w.number(8, 10) if passed else w.number(2, 6)
        phases.append(
            Phase(
                p.at(f"Quiz: {topic}", f"course/quiz-{i}"),
                p.frame(
                    w,
                    [
                        f"Quiz: {topic}",
                        f"Question {w.number(2, 9)} of 10",
                        "A. " + w.pick("answer", ("a half", "three quarters", "the tonic", "a bowline")),
                        "B. none of these",
                        "Submit answer",
                    ],
                ),
                w.between(120, 500),
            )
        )
        line = w.pick("quiz_passed" if passed else "quiz_failed", QUIZ_PASSED if passed else QUIZ_FAILED).format(s=s)
        outcome, polarity = ("success", "positive") if passed else ("failure", "negative")
    else:
        line = w.pick("lesson_done", LESSON_DONE).format(i=i)
        outcome, polarity = "success", "positive"
    phases.append(
        Phase(
            p.at(f"Results: {topic}", f"course/result-{i}"),
            p.frame(w, [line, "Review answers", "Continue to next lesson"]),
            w.between(30, 120),
            part="outcome",
        )
    )
    return Activity("learning", "learning.course", outcome, polarity, line, phases, surface_kind=p.kind)
