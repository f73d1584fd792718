"""``deploy/compose.yaml`` cannot be run here (no Docker engine), so it is held to the plain commands instead: it
parses, its services run the commands docs/serving.md gives for a node and for the deploy step, in that order,
and every service carries the settings of the documented environment file."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "deploy" / "compose.yaml"
DOCS = ROOT / "docs" / "serving.md"


def _compose() -> dict:
    return yaml.safe_load(COMPOSE.read_text())


def _plain_commands() -> tuple[set[str], dict[str, str]]:
    """From the "Plain commands" section: the environment file's names and the role → command lines."""
    section = DOCS.read_text().split("### Plain commands", 1)[1].split("\n### ", 1)[0]
    env_block, commands_block = re.findall(r"```sh\n(.*?)```", section, re.S)[:2]
    names = {line.split("=", 1)[0] for line in env_block.splitlines() if "=" in line}
    roles = {}
    for line in commands_block.splitlines():
        command, _, comment = line.partition("#")
        if comment.strip():
            roles[comment.split(":")[0].strip()] = command.strip()
    return names, roles


def _command(service: dict) -> str:
    argv = service["command"]
    return argv[-1] if argv[:2] == ["sh", "-c"] else " ".join(argv)


def test_the_compose_file_runs_the_documented_commands_for_each_role():
    services = _compose()["services"]
    _, roles = _plain_commands()

    assert set(services) == {"db", "migrate", "web", "worker"}
    assert roles.keys() == {"deploy step", "web", "worker"}
    assert _command(services["migrate"]) == roles["deploy step"]
    assert _command(services["web"]) == roles["web"]
    assert _command(services["worker"]) == roles["worker"]
    for role in ("web", "worker"):  # the nodes start only after the deploy step succeeded
        assert services[role]["depends_on"] == {"migrate": {"condition": "service_completed_successfully"}}
    assert services["migrate"]["depends_on"] == {"db": {"condition": "service_healthy"}}


def test_every_almanac_service_carries_the_documented_environment():
    services = _compose()["services"]
    names, _ = _plain_commands()

    for role in ("migrate", "web", "worker"):
        env = set(services[role]["environment"])
        # In compose the secret key comes from a Docker secret: the same setting, read from a file.
        assert env - {"ALMANAC_SECRET_KEY_FILE"} | {"ALMANAC_SECRET_KEY"} == names, role
        assert services[role]["secrets"] == ["almanac_secret_key"]
    database = services["db"]["environment"]
    url = services["web"]["environment"]["DATABASE_URL"]
    assert url == f"postgresql://{database['POSTGRES_USER']}:{database['POSTGRES_PASSWORD']}@db:5432/{database['POSTGRES_DB']}"


def test_the_image_it_builds_exists_and_runs_the_web_server_by_default():
    build = _compose()["services"]["web"]["build"]
    dockerfile = (COMPOSE.parent / build["context"] / build["dockerfile"]).resolve()
    text = dockerfile.read_text()

    assert dockerfile == ROOT / "deploy" / "Dockerfile"
    assert 'CMD ["gunicorn", "-c", "memory_site/gunicorn_conf.py"]' in text
    assert "pip install --no-cache-dir ." in text and "USER almanac" in text
