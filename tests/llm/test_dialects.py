"""Each server's structured-output dialect and error shape: the client learns the form a server accepts (probed
once per configuration, or stepped down on the first call), keeps the schema at every step, and the start-up
check says when calls will fail."""

from __future__ import annotations

import json
import threading
import time

import httpx
import pytest
from django.core.management import CommandError, call_command
from pydantic import BaseModel, ConfigDict, Field

from ledger import llm
from ledger.llm import health

pytestmark = pytest.mark.django_db
CALL = llm.CallType.SCREEN_NAMER


class Answer(BaseModel):
    model_config = ConfigDict(extra="forbid")

    colour: str = Field(max_length=20)
    count: int = Field(ge=0, le=9)


GOOD = '{"colour": "teal", "count": 3}'


def ask(data=None):
    return llm.ask(call=CALL, owner=None, system="Name the colour.", data=data or {"text": "three teal boats"},
                   answer=Answer, prompt_version="d1")  # fmt: skip


def test_llama_cpp_python_answers_json_schema_with_500_and_gets_json_object_with_its_schema(model):
    model.dialect, model.echo_without_schema = "llama-cpp-python", True
    model.chat_handler = lambda messages: GOOD
    assert ask().value == Answer(colour="teal", count=3)
    assert ask(data={"text": "a second question"}).value.count == 3
    sent = model.chat_requests()
    assert [b["response_format"]["type"] for b in sent] == ["json_schema", "json_object", "json_object"]
    assert all(b["response_format"]["schema"] == Answer.model_json_schema() for b in sent[1:])
    assert health.known_dialect() == "json_object_schema"


def test_ollama_is_asked_on_its_own_api_with_the_schema_as_format(model):
    model.dialect, model.echo_without_schema = "ollama", True
    model.chat_handler = lambda messages: GOOD
    assert health.probe() == []
    assert health.known_dialect() == "ollama"
    reply = ask()
    body = model.requests[-1]
    assert model.requests[-1]["path"] == "/api/chat" and body["body"]["format"] == Answer.model_json_schema()
    assert body["body"]["options"]["num_predict"] == llm.config.DEFAULT_MAX_TOKENS[CALL]
    assert reply.value.colour == "teal" and reply.tokens == 5 + len(GOOD.split(" "))


def test_an_ollama_answer_cut_at_num_predict_counts_its_tokens(model, settings):
    model.dialect = "ollama"
    settings.ALMANAC_LLM_MAX_TOKENS = {CALL.value: 16}
    model.chat_handler = lambda messages: " ".join(["word"] * 40)
    health.probe()
    with pytest.raises(llm.LLMError, match="max_tokens"):
        ask()
    stat = next(s for s in llm.today_stats(None) if s.call_type == CALL)
    assert (stat.calls, stat.valid, stat.tokens) == (1, 0, 5 + 16)


def test_the_probe_learns_the_form_once_and_again_for_a_new_configuration(model, settings):
    model.dialect = "llama-cpp-python"
    model.models = ["imitation-1", "imitation-2"]
    model.chat_handler = lambda messages: GOOD
    assert health.probe() == []
    probes = len(model.chat_requests())
    ask()
    assert len(model.chat_requests()) == probes + 1  # no step-down: the form is known
    assert model.chat_requests()[-1]["response_format"] == {"type": "json_object", "schema": Answer.model_json_schema()}
    settings.ALMANAC_LLM_MODEL = "imitation-2"
    assert health.known_dialect() is None
    health._dialects.clear()  # another process: the shared cache still knows the first configuration's form
    settings.ALMANAC_LLM_MODEL = "imitation-1"
    assert health.known_dialect() == "json_object_schema"


def test_the_startup_check_says_when_calls_will_fail(model, capsys):
    model.mode = "error"  # HTTP 500 to every request shape
    problems = health.probe()
    assert any(p.startswith("calls will fail") and "json_schema: HTTP 500" in p for p in problems)
    with pytest.raises(CommandError, match="calls will fail"):
        call_command("check_llm")
    model.mode = "ok"
    model.chat_handler = lambda messages: GOOD
    call_command("check_llm")
    assert "Calls will work." in capsys.readouterr().out


def test_a_server_that_interrupts_answers_is_named_with_its_fix(model):
    """llama-cpp-python's default ``interrupt_requests`` ends a streamed answer with [DONE] when another request
    arrives: that is a failure with its cause named, not a short answer."""
    model.dialect, model.word_delay = "llama-cpp-python", 0.05
    model.chat_handler = lambda messages: " ".join(['{"colour": "teal",'] + [" "] * 30 + ['"count": 3}'])
    health.remember_dialect("json_object_schema")

    def another_request():
        while model.streaming == 0:
            time.sleep(0.01)
        httpx.get(model.base_url + "/models")

    other = threading.Thread(target=another_request)
    other.start()
    with pytest.raises(llm.LLMError, match="interrupted"):
        ask()
    other.join()
    assert any("--interrupt_requests False" in p for p in llm.problems())


def test_a_model_call_inside_a_transaction_is_refused_and_nothing_is_sent(model):
    from django.db import transaction

    model.chat_handler = lambda messages: GOOD
    with transaction.atomic(), pytest.raises(llm.LLMError, match="inside a database transaction"):
        ask()
    assert model.chat_requests() == []
    assert ask().value.count == 3  # outside it, the call goes


def test_the_ollama_error_shape_is_read(model, settings):
    model.dialect, model.models = "ollama", ["imitation-1"]
    settings.ALMANAC_LLM_MODEL = "gemma3:270m"
    with pytest.raises(llm.LLMError, match="404"):
        ask()
    assert any("does not serve the model 'gemma3:270m'" in p for p in llm.problems())
    assert json.loads(json.dumps(model.requests[-1]["body"]))["model"] == "gemma3:270m"
