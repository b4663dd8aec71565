"""Exit codes and messages of the command line, against real processes."""

import json
import signal
import subprocess
import time

from conftest import run_cli, wait_for_line


def test_unknown_flag_exits_2_with_usage(suite, project_dir):
    result = run_cli(suite.binary, "start", "--bogus", cwd=project_dir)
    assert result.returncode == 2
    assert "unknown option '--bogus'" in result.stderr
    assert "Usage: emulators start" in result.stderr


def test_version_and_help(suite, project_dir):
    version = run_cli(suite.binary, "--version", cwd=project_dir)
    assert version.returncode == 0 and version.stdout.strip()
    help_text = run_cli(suite.binary, "help", "exec", cwd=project_dir)
    assert help_text.returncode == 0
    assert "FIRESTORE_EMULATOR_HOST" in help_text.stdout


def test_unknown_emulator_name_uses_the_official_message(suite, project_dir):
    result = run_cli(suite.binary, "start", "--only", "firestroe", cwd=project_dir)
    assert result.returncode == 1
    assert "firestroe is not a valid emulator name, valid options are: [" in result.stderr


def test_taken_port_exits_1_naming_the_port(suite, project_dir):
    config = json.loads((project_dir / "firebase.json").read_text())
    config["emulators"]["firestore"]["port"] = suite.firestore_port
    (project_dir / "firebase.json").write_text(json.dumps(config))
    result = run_cli(suite.binary, "start", cwd=project_dir)
    assert result.returncode == 1
    assert "Could not start Firestore Emulator, port taken." in result.stderr
    assert f"Port {suite.firestore_port}" in result.stderr
    assert "emulators.firestore.port" in result.stderr
    assert "All emulators ready" not in result.stdout


def test_malformed_firebase_json_names_file_line_and_column(suite, project_dir):
    (project_dir / "firebase.json").write_text('{\n  "emulators": {\n    "firestore": { "port": 8080, }\n  }\n}\n')
    result = run_cli(suite.binary, "start", cwd=project_dir)
    assert result.returncode == 1
    assert f"{project_dir}/firebase.json:3:" in result.stderr


def test_port_of_the_wrong_type_names_the_key(suite, project_dir):
    (project_dir / "firebase.json").write_text('{"emulators": {"database": {"port": {"value": 9000}}}}')
    result = run_cli(suite.binary, "start", cwd=project_dir)
    assert result.returncode == 1
    assert "emulators.database.port must be a port number, found an object" in result.stderr


def _start(suite, project_dir):
    log = project_dir / "out.log"
    env_tmp = str(project_dir / "tmp")
    process = subprocess.Popen(
        [suite.binary, "start", "--project", "demo-signals"],
        cwd=project_dir,
        stdout=log.open("w"),
        stderr=subprocess.STDOUT,
        env={"PATH": "/usr/bin:/bin", "TMPDIR": env_tmp},
    )
    wait_for_line(log, "All emulators ready", process)
    return process, log


def test_sigterm_shuts_down_cleanly_with_exit_0(suite, project_dir):
    process, log = _start(suite, project_dir)
    locator = project_dir / "tmp" / "hub-demo-signals.json"
    assert locator.exists()
    started = time.monotonic()
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=10) == 0
    assert time.monotonic() - started < 3
    assert "Received SIGTERM for the first time. Starting a clean shutdown." in log.read_text()
    assert not locator.exists()


def test_second_signal_exits_at_once(suite, project_dir):
    process, log = _start(suite, project_dir)
    # Hold a connection open with a half-sent request so the clean shutdown has to wait.
    import socket

    config = json.loads((project_dir / "firebase.json").read_text())
    hold = socket.create_connection(("127.0.0.1", config["emulators"]["hub"]["port"]))
    hold.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")
    process.send_signal(signal.SIGINT)
    time.sleep(0.3)
    process.send_signal(signal.SIGINT)
    status = process.wait(timeout=10)
    hold.close()
    assert status in (0, 130)
    text = log.read_text()
    assert "Received SIGINT (Ctrl-C) for the first time." in text
    if status == 130:
        assert "for the second time. Exiting right now." in text
    assert not (project_dir / "tmp" / "hub-demo-signals.json").exists()
