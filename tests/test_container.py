"""The container image's files: the Containerfile's contract, the build script's choice of Debian
mirror, docs/deploy.md's "Run the container" and the compose file.

Building and running the image is ``make image`` (scripts/build-image.sh, then
scripts/smoke-image.sh), which ``make test`` runs where buildah and podman are installed (CI
installs them); it is minutes of work, so the suite does not do it a second time. Set
``GONUTS_TEST_IMAGE`` to an image already built to smoke-test it from here as well.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml  # type: ignore[import-untyped]

ROOT = Path(__file__).resolve().parents[1]
CONTAINERFILE = ROOT / "Containerfile"
BUILD = ROOT / "scripts" / "build-image.sh"
SMOKE = ROOT / "scripts" / "smoke-image.sh"
DEPLOY_MD = ROOT / "docs" / "deploy.md"
COMPOSE = ROOT / "compose.yaml"


def stages() -> list[list[str]]:
    """The Containerfile's instructions (continuation lines joined), one list per stage."""
    text = re.sub(r"\\\n", " ", CONTAINERFILE.read_text(encoding="utf-8"))
    lines = [
        ln.strip() for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")
    ]
    result: list[list[str]] = [[]]
    for line in lines:
        if (
            line.upper().startswith("FROM ")
            and result[-1]
            and any(x.upper().startswith("FROM ") for x in result[-1])
        ):
            result.append([])
        result[-1].append(line)
    return result


def instructions(stage: list[str], word: str) -> list[str]:
    return [ln[len(word) :].strip() for ln in stage if ln.upper().startswith(word + " ")]


def test_the_base_is_a_build_argument_defaulting_to_the_official_python_image() -> None:
    first = stages()[0]
    args = [ln for ln in first if ln.startswith("ARG BASE_IMAGE=")]
    assert args == ["ARG BASE_IMAGE=docker.io/library/python:3.11-slim-bookworm"]
    froms = [ln for stage in stages() for ln in stage if ln.startswith("FROM ")]
    assert froms == ["FROM ${BASE_IMAGE} AS build", "FROM ${BASE_IMAGE}"]


def test_the_build_stage_installs_the_hashed_lock_then_gonuts_with_a_compiler() -> None:
    build = " ".join(stages()[0])
    lock = build.index("--require-hashes -r /src/requirements/run.txt")
    assert lock < build.index("pip install --quiet --no-deps /src"), "the lock first"
    assert "PIP_CONFIG_FILE=/dev/null" in build  # PyPI alone, whatever the base's pip says
    assert "gcc libc6-dev" in build and "cc --version" in build
    # the host's CA reaches pip as a build secret only, never as a file of a layer
    assert build.count("--mount=type=secret,id=pip-cert") == 2
    assert "COPY" not in " ".join(ln for ln in stages()[0] if "cert" in ln)


def test_the_final_stage_runs_unprivileged_with_health_check_volume_and_sigterm() -> None:
    final = stages()[-1]
    text = " ".join(final)
    assert instructions(final, "USER") == ["gonuts:gonuts"]
    assert instructions(final, "STOPSIGNAL") == ["SIGTERM"]
    assert instructions(final, "VOLUME") == ['["/var/lib/gonuts"]']
    (health,) = instructions(final, "HEALTHCHECK")
    assert "/healthz" in health and "GONUTS_PORT" in health
    assert "GONUTS_DB_URL=sqlite:////var/lib/gonuts/gonuts.sqlite3" in text
    assert "GONUTS_HOST=0.0.0.0" in text
    assert instructions(final, "COPY") == ["--from=build /opt/gonuts /opt/gonuts"]
    assert "secret" not in text and "PIP_CERT" not in text
    assert instructions(final, "ENTRYPOINT") == ['["gonuts"]']
    assert instructions(final, "CMD") == ['["serve"]']


def test_the_build_context_leaves_out_the_virtual_environment_and_git() -> None:
    ignored = (ROOT / ".containerignore").read_text(encoding="utf-8").split()
    assert {".git", ".venv", "tests"} <= set(ignored)
    assert "src" not in ignored and "requirements" not in ignored


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        (
            {
                "sources.list.d/debian.sources": "Types: deb\nURIs: http://mirror.test/debian\n"
                "Suites: bookworm\n\nTypes: deb\nURIs: http://mirror.test/debian-security\n"
            },
            "http://mirror.test/debian",
        ),
        (
            {
                "sources.list": "# deb http://commented.test/debian bookworm main\n"
                "deb [arch=amd64] https://one-line.test/debian bookworm main\n"
            },
            "https://one-line.test/debian",
        ),
        (
            {"sources.list": "deb http://only.test/debian-security bookworm-security main\n"},
            "",
        ),
        ({}, ""),
    ],
)
def test_the_local_base_takes_the_mirror_of_the_apt_sources(
    tmp_path: Path, files: dict[str, str], expected: str
) -> None:
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "DEBIAN_MIRROR"}
    env["GONUTS_APT_ETC"] = str(tmp_path)
    done = subprocess.run(
        ["bash", str(BUILD), "--print-mirror"], env=env, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == expected
    env["DEBIAN_MIRROR"] = "http://override.test/debian"
    done = subprocess.run(
        ["bash", str(BUILD), "--print-mirror"], env=env, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "http://override.test/debian"


def test_no_mirror_host_is_written_into_the_scripts() -> None:
    """The mirror is read from the machine's apt sources (or DEBIAN_MIRROR), never hard-coded."""
    for path in (BUILD, SMOKE, ROOT / "scripts" / "container-env.sh", ROOT / ".ci" / "run"):
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"https?://[a-z0-9.-]+/debian", text), path


def test_deploy_md_runs_the_container_first_with_the_commands_ci_runs() -> None:
    text = DEPLOY_MD.read_text(encoding="utf-8")
    headings = re.findall(r"^## (.+)$", text, re.M)
    assert headings[0] == "Run the container"
    section = text.split("## Run the container", 1)[1].split("\n## ", 1)[0]
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert "scripts/build-image.sh $(IMAGE_FLAGS) --tag $(IMAGE)" in makefile
    assert "IMAGE_FLAGS ?= --local-base" in makefile
    for command in ("scripts/build-image.sh --local-base", "scripts/smoke-image.sh", "make image"):
        assert command in section, command


def documented_nginx() -> str:
    blocks = re.findall(r"```nginx\n(.*?)```", DEPLOY_MD.read_text(encoding="utf-8"), re.S)
    assert len(blocks) == 1
    return str(blocks[0])


def test_the_compose_file_is_the_documented_deployment() -> None:
    """compose.yaml: PostgreSQL, two gonuts processes of the image and nginx with the nginx
    configuration of docs/deploy.md (tested with real nginx by tests/web/test_deploy.py), its
    upstream named by service."""
    compose = yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))
    services = compose["services"]
    assert set(services) == {"db", "gonuts-1", "gonuts-2", "nginx"}
    for name in ("gonuts-1", "gonuts-2"):
        service = services[name]
        env = service["environment"]
        assert env["GONUTS_DB_URL"].startswith("postgresql://gonuts:")
        assert "@db:5432/gonuts" in env["GONUTS_DB_URL"]
        assert (
            env["GONUTS_FORWARDED_ALLOW_IPS"]
            == services["nginx"]["networks"]["gonuts"]["ipv4_address"]
        )
        assert service["stop_signal"] == "SIGTERM"
        assert service["depends_on"]["db"]["condition"] == "service_healthy"
        assert "ports" not in service  # only nginx is published
    (mount,) = services["nginx"]["volumes"]
    source = mount.split(":")[0]
    conf = (ROOT / source).read_text(encoding="utf-8")
    expected = documented_nginx().replace("127.0.0.1:8001", "gonuts-1:8000")
    expected = expected.replace("127.0.0.1:8002", "gonuts-2:8000")
    assert conf.split("\n", 2)[2] == expected, "the compose nginx file drifted from deploy.md"
    assert services["db"]["volumes"] == ["pgdata:/var/lib/postgresql/data"]


@pytest.mark.skipif(
    not os.environ.get("GONUTS_TEST_IMAGE"),
    reason="the image is built and smoke-tested by `make image` (make test runs it where "
    "buildah and podman are installed); set GONUTS_TEST_IMAGE=IMAGE to smoke-test a built "
    "image from pytest",
)
def test_smoke_the_built_image() -> None:
    if shutil.which("podman") is None:
        pytest.skip("podman is not installed (apt-get install podman runc)")
    image = os.environ["GONUTS_TEST_IMAGE"]
    done = subprocess.run(
        ["bash", str(SMOKE), image], capture_output=True, text=True, timeout=600, check=False
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "smoke test passed" in done.stdout
