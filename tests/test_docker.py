"""The Docker path as written (#31 item 1), with no Docker engine here: the image's first run, simulated.

The image's environment (its `ENV` lines), the documented `.env` (`cp .env.example .env`, passed with
`docker run --env-file .env`, which wins over the image's), its user (uid 10001) in a root-owned working folder
(`/app`), and a volume the user owns (`/data`): `python -m bot migrate` must create the database on the volume.
"""

from __future__ import annotations

import os
import re
import shutil
import site
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers import ROOT

pytestmark = pytest.mark.slow  # starts processes or runs for seconds: scheduled first (tests/conftest.py)

DOCKERFILE = ROOT / "Dockerfile"
UID = int(re.search(r"--uid (\d+)", DOCKERFILE.read_text())[1])  # type: ignore[index]


def image_environment() -> dict[str, str]:
    """The Dockerfile's ENV lines (`ENV A=1 \\` continued over several lines), as the image sets them."""
    text = DOCKERFILE.read_text().replace("\\\n", " ")
    env: dict[str, str] = {}
    for line in text.splitlines():
        if line.startswith("ENV "):
            env.update(pair.split("=", 1) for pair in line[4:].split())
    return env


def env_file(text: str) -> dict[str, str]:
    """What `docker run --env-file` reads: KEY=VALUE lines as written, comments and blank lines skipped."""
    pairs = (line.split("=", 1) for line in text.splitlines() if line.strip() and not line.startswith("#"))
    return {key: value for key, value in pairs}


def on_volume(value: str, volume: Path) -> str:
    """An image path on `/data`, moved to the simulated volume."""
    return re.sub(r"(?<![\w/])/data(?=/|$)", str(volume), value.replace("////data/", f"///{volume}/"))


def as_image_user(command: list[str], **options: object) -> subprocess.CompletedProcess[str]:
    """Run `python COMMAND` as the image's user: this Python, or the system's with this one's packages on its path.

    The interpreter may sit where that user cannot reach it (a pyenv under /root); the system's Python of the same
    version then runs the same packages and this checkout, given as PYTHONPATH.
    """
    env = dict(options.pop("env", None) or os.environ)  # type: ignore[call-overload]
    tried = []
    for python, extra in (
        (sys.executable, {}),
        ("/usr/bin/python3", {"PYTHONPATH": os.pathsep.join([str(ROOT), *site.getsitepackages()])}),
    ):
        try:
            done = subprocess.run(
                [python, *command], user=UID, group=UID, env=env | extra, capture_output=True, text=True, **options
            )  # type: ignore[call-overload]
        except OSError as error:
            tried.append(f"{python}: {error}")
            continue
        if "import bot" not in command or done.returncode == 0:
            return done  # type: ignore[no-any-return]
        tried.append(f"{python}: {done.stderr[-200:]}")
    pytest.skip(f"uid {UID} can run no Python with this checkout's packages: {'; '.join(tried)}")


@pytest.fixture
def container() -> Iterator[tuple[Path, Path]]:
    """A root-owned working folder (the image's /app) and a volume owned by the image's user (its /data)."""
    if os.geteuid() != 0:
        pytest.skip("simulating the image's user needs root")
    # Not under pytest's basetemp, whose folders only their owner may enter.
    root = Path(tempfile.mkdtemp(prefix="dicebot-image-"))
    try:
        root.chmod(0o755)
        app, volume = root / "app", root / "data"
        app.mkdir(mode=0o755)
        volume.mkdir()
        os.chown(volume, UID, UID)
        as_image_user(["-c", "import bot"], cwd=app)  # skips when no Python can run for that user here
        yield app, volume
    finally:
        shutil.rmtree(root, ignore_errors=True)


@pytest.mark.parametrize(
    "dotenv",
    [
        pytest.param((ROOT / ".env.example").read_text(), id="the documented .env"),
        pytest.param("DISCORD_TOKEN=\nDATABASE_URL=\n", id="DATABASE_URL left empty"),
    ],
)
def test_the_image_first_run_creates_the_database_on_its_volume(container: tuple[Path, Path], dotenv: str) -> None:
    app, volume = container
    env = {key: on_volume(value, volume) for key, value in image_environment().items()}
    env |= env_file(dotenv)  # docker run --env-file wins over the image's ENV
    env |= {"PATH": os.environ["PATH"], "HOME": str(app)}
    done = as_image_user(["-m", "bot", "migrate"], cwd=app, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert (volume / "bot.db").exists()
    assert not any(app.iterdir())  # nothing in the container's layer


def test_the_build_context_leaves_out_the_token_the_database_and_the_virtualenv() -> None:
    ignored = (ROOT / ".dockerignore").read_text().splitlines()
    for needed in (".env", ".venv/", "data/", "*.db", "*.db-*", ".git/"):
        assert needed in ignored
    assert "!.env.example" in ignored
    assert "DATABASE_URL" not in image_environment()  # DATA_DIR puts the database on the volume
    # An .env value, even an empty one, wins over the image's: the example leaves the image's settings alone.
    assert not set(image_environment()) & set(env_file((ROOT / ".env.example").read_text()))


def test_the_image_checks_its_health_on_the_port_it_sets() -> None:
    text = DOCKERFILE.read_text()
    assert (
        'HEALTHCHECK --interval=30s --timeout=10s --start-period=60s --retries=3 CMD ["python", "-m", "bot", "health"]'
        in text
    )
    assert image_environment()["METRICS_PORT"] == "9108"


def test_the_image_and_ci_install_the_locked_versions() -> None:
    """Base images name a release, and every dependency's version comes from requirements.lock."""
    import tomllib

    lock = {
        line.split("==")[0].lower().replace("_", "-"): line.split("==")[1]
        for line in (ROOT / "requirements.lock").read_text().splitlines()
        if line and not line.startswith("#")
    }
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    named = [*project["dependencies"], *(d for extra in project["optional-dependencies"].values() for d in extra)]
    for requirement in named:
        name = re.split(r"[<>=!\[ ;]", requirement, maxsplit=1)[0].lower().replace("_", "-")
        assert name in lock, f"{name} is not pinned in requirements.lock"
    text = DOCKERFILE.read_text()
    (base,) = re.findall(r"^FROM (\S+)", text, re.M)
    assert re.fullmatch(r"python:3\.11\.\d+-slim-\w+", base), base
    assert "COPY pyproject.toml README.md requirements.lock ./" in text and "pip install -c requirements.lock" in text
    assert "pip install --quiet -c requirements.lock -e '.[dev]'" in (ROOT / ".ci" / "run").read_text()
    compose = (ROOT / "compose.yaml").read_text()
    assert re.findall(r"image: (\S+)", compose) == ["postgres:16.10-bookworm"]
