"""Fixtures for the interop suite. `Tests/Interop/run` starts the suite and exports where it runs."""

import json
import os
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from seed_emulator_data import free_ports  # noqa: F401  (the tests import it from here)


@dataclass(frozen=True)
class RunningSuite:
    binary: str
    project_dir: Path
    log: Path
    project: str
    pid: int
    host: str
    firestore_port: int
    database_port: int
    hub_port: int

    @property
    def firestore(self) -> str:
        return f"{self.host}:{self.firestore_port}"

    @property
    def database(self) -> str:
        return f"{self.host}:{self.database_port}"

    @property
    def hub(self) -> str:
        return f"{self.host}:{self.hub_port}"


def pytest_configure(config):
    """Point the official clients at the suite before any test module imports them."""
    host = "127.0.0.1"
    for variable, port in [
        ("FIRESTORE_EMULATOR_HOST", "EMULATORS_FIRESTORE_PORT"),
        ("FIREBASE_DATABASE_EMULATOR_HOST", "EMULATORS_DATABASE_PORT"),
        ("FIREBASE_EMULATOR_HUB", "EMULATORS_HUB_PORT"),
    ]:
        if os.environ.get(port):
            os.environ[variable] = f"{host}:{os.environ[port]}"
    if os.environ.get("EMULATORS_PROJECT"):
        os.environ["GCLOUD_PROJECT"] = os.environ["EMULATORS_PROJECT"]


def _require(name: str) -> str:
    value = os.environ.get(name)
    if not value:
        pytest.exit(f"{name} is not set: run the interop suite through Tests/Interop/run", returncode=1)
    return value


@pytest.fixture(scope="session")
def suite() -> RunningSuite:
    """The suite `run` started, with FIRESTORE_EMULATOR_HOST and FIREBASE_DATABASE_EMULATOR_HOST set."""
    running = RunningSuite(
        binary=_require("EMULATORS_BIN"),
        project_dir=Path(_require("EMULATORS_PROJECT_DIR")),
        log=Path(_require("EMULATORS_LOG")),
        project=_require("EMULATORS_PROJECT"),
        pid=int(_require("EMULATORS_PID")),
        host="127.0.0.1",
        firestore_port=int(_require("EMULATORS_FIRESTORE_PORT")),
        database_port=int(_require("EMULATORS_DATABASE_PORT")),
        hub_port=int(_require("EMULATORS_HUB_PORT")),
    )
    os.environ["FIRESTORE_EMULATOR_HOST"] = running.firestore
    os.environ["FIREBASE_DATABASE_EMULATOR_HOST"] = running.database
    os.environ["FIREBASE_EMULATOR_HUB"] = running.hub
    os.environ["GCLOUD_PROJECT"] = running.project
    return running


@pytest.fixture
def project_dir(tmp_path: Path) -> Path:
    """A fresh project directory whose firebase.json uses free ports (for a second suite)."""
    firestore, database, hub = free_ports(3)
    config = {
        "emulators": {
            "firestore": {"port": firestore},
            "database": {"port": database},
            "hub": {"port": hub},
        }
    }
    (tmp_path / "firebase.json").write_text(json.dumps(config))
    (tmp_path / "tmp").mkdir()
    return tmp_path


def run_cli(binary: str, *args: str, cwd: Path, timeout: float = 60, env: dict | None = None) -> subprocess.CompletedProcess:
    """Runs the emulators binary to completion and returns its result (text output)."""
    environment = dict(os.environ)
    environment["TMPDIR"] = str(cwd / "tmp") if (cwd / "tmp").is_dir() else tempfile.gettempdir()
    if env:
        environment.update(env)
    return subprocess.run(
        [binary, *args], cwd=cwd, env=environment, capture_output=True, text=True, timeout=timeout
    )


def wait_for_line(path: Path, text: str, process: subprocess.Popen, timeout: float = 60) -> str:
    """Waits until `text` appears in the file at `path`; fails if the process exits first."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        content = path.read_text() if path.exists() else ""
        if text in content:
            return content
        if process.poll() is not None:
            raise AssertionError(f"process exited ({process.returncode}) before printing {text!r}:\n{content}")
        time.sleep(0.05)
    raise AssertionError(f"{text!r} not printed within {timeout} s")
