"""Lessons from failures (issue 36, item 11): only a failure that mattered (a stated cause, and the agent changed
course to something that worked) teaches, the lesson names the cause and what worked instead, and one cause is
one lesson whichever tool or file it hit. Outputs in the shapes real tools print (shells, git, grep, Python,
cargo, npm)."""

from __future__ import annotations

from dataclasses import dataclass, field

from chats.episodes import find_moments


@dataclass
class Turn:
    role: str
    text: str = ""
    tool_calls: list = field(default_factory=list)
    index: int = 0


def _bash(command: str, result: str = "", error: bool = False) -> dict:
    return {"name": "Bash", "input": {"command": command}, "result": result, "is_error": error}


def _session(*calls_per_turn) -> list[Turn]:
    turns = [Turn("user", "Please tidy the report scripts and run the checks.", index=0)]
    for calls in calls_per_turn:
        turns.append(Turn("assistant", "Working on it.", list(calls), index=len(turns)))
    return turns


def _errors(turns) -> list:
    return [m for m in find_moments(turns, "/home/dev/reports") if m.kind == "error"]


def test_a_search_that_finds_nothing_and_a_clean_tree_teach_nothing():
    turns = _session([_bash("rg -n 'TODO' src", "", True), _bash("rg -n 'FIXME' src", "src/a.py:3: FIXME")],
                     [_bash("git commit -m 'wip'", "On branch main\nnothing to commit, working tree clean", True),
                      _bash("git status", "On branch main")])  # fmt: skip
    assert _errors(turns) == []


def test_a_failure_the_agent_did_not_get_past_or_that_only_needed_a_retry_teaches_nothing():
    gave_up = _session([_bash("make docs", "make: *** No rule to make target 'docs'.  Stop.\nerror: no target", True)])
    flaky = _session([_bash("curl -fsS http://127.0.0.1:9/health", "curl: (7) Failed to connect: Connection refused",
                            True), _bash("curl -fsS http://127.0.0.1:9/health", "ok")])  # fmt: skip
    assert _errors(gave_up) == [] and _errors(flaky) == []


def test_one_cause_over_three_tools_is_one_lesson_naming_the_cause_and_the_fix():
    cause = "/bin/bash: -c: line 1: syntax error near unexpected token `('"
    turns = _session(
        [_bash("ls reports/q1(final)", cause, True), _bash('ls "reports/q1(final)"', "summary.csv")],
        [_bash("cat reports/q2(draft)/notes.md", cause.replace("`('", "`('"), True),
         _bash("cat 'reports/q2(draft)/notes.md'", "notes")],
        [_bash("python -m pytest tests/test_q3(v2).py", cause, True),
         _bash('python -m pytest "tests/test_q3(v2).py"', "3 passed")],
    )  # fmt: skip
    moments = _errors(turns)
    assert len(moments) == 3 and len({m.signature for m in moments}) == 1
    first = moments[0].lesson
    assert "syntax error near unexpected token" in first and '`ls "reports/q1(final)"` worked instead' in first
    assert "check for that before" not in first


def test_the_cause_is_the_error_line_not_stray_output():
    traceback = ("Collecting data...\nprocessed 120 rows\nTraceback (most recent call last):\n"
                 '  File "etl.py", line 9, in <module>\n    import pandas\n'
                 "ModuleNotFoundError: No module named 'pandas'")  # fmt: skip
    cargo = (
        "   Compiling tally v0.3.1\nerror[E0425]: cannot find value `totl` in this scope\n"
        ' --> src/main.rs:4:5\nerror: could not compile `tally` (bin "tally") due to 1 previous error'
    )
    turns = _session([_bash("python etl.py", traceback, True), _bash("pip install pandas", "Successfully installed"),
                      _bash("python etl.py", "done")],
                     [_bash("cargo build", cargo, True), _bash("cargo build --offline", "Finished")])  # fmt: skip
    etl, build = _errors(turns)
    assert etl.quote == "ModuleNotFoundError: No module named 'pandas'"
    assert "running `pip install pandas` first made it work" in etl.lesson
    assert (
        build.quote.startswith("error: could not compile") and "`cargo build --offline` worked instead" in build.lesson
    )


def test_a_person_stepping_in_ends_the_agents_run():
    turns = _session([_bash("npm run build", 'npm ERR! Missing script: "build"\nnpm error: missing script', True)])
    turns.append(Turn("user", "Use the make target for builds in this repository.", index=len(turns)))
    turns.append(Turn("assistant", "Building.", [_bash("npm run compile", "ok")], index=len(turns)))
    assert _errors(turns) == []  # what worked came after the person spoke: theirs is the lesson (a correction)
