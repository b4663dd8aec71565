"""Exit codes and messages of the command line, against real processes."""

import json
import os
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


def _hold_shutdown(project_dir):
    """A connection to the hub holding half a request: the clean shutdown waits for it (up to
    the 2 s drain), so a signal sent during the shutdown finds it still running."""
    import socket

    config = json.loads((project_dir / "firebase.json").read_text())
    hold = socket.create_connection(("127.0.0.1", config["emulators"]["hub"]["port"]))
    hold.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")
    time.sleep(0.3)  # let the hub read it: a connection with nothing buffered closes at once
    return hold


def test_second_signal_exits_at_once(suite, project_dir):
    process, log = _start(suite, project_dir)
    hold = _hold_shutdown(project_dir)
    try:
        process.send_signal(signal.SIGINT)
        wait_for_line(log, "Please wait for a clean shutdown", process)
        time.sleep(0.15)  # past the 100 ms in which a second signal is ignored
        process.send_signal(signal.SIGINT)
        status = process.wait(timeout=10)
    finally:
        hold.close()
    assert status == 130
    text = log.read_text()
    assert "Received SIGINT (Ctrl-C) for the first time." in text
    assert "Received SIGINT for the second time. Exiting right now." in text
    assert not (project_dir / "tmp" / "hub-demo-signals.json").exists()


def test_a_signal_within_100_ms_of_the_first_is_ignored(suite, project_dir):
    process, log = _start(suite, project_dir)
    hold = _hold_shutdown(project_dir)
    try:
        # npm sends SIGINT twice; two different signals, so the second is not merged into the first.
        os.kill(process.pid, signal.SIGINT)
        os.kill(process.pid, signal.SIGTERM)
        status = process.wait(timeout=10)
    finally:
        hold.close()
    text = log.read_text()
    assert status == 0, text
    assert "Received SIGINT (Ctrl-C) for the first time." in text
    assert "for the second time" not in text
    assert "Stopping Firestore Emulator" in text


def _exec(suite, project_dir, script):
    log = project_dir / "out.log"
    process = subprocess.Popen(
        [suite.binary, "exec", "--project", "demo-signals", script],
        cwd=project_dir,
        stdout=log.open("w"),
        stderr=subprocess.STDOUT,
        env={"PATH": "/usr/bin:/bin", "TMPDIR": str(project_dir / "tmp")},
    )
    wait_for_line(log, "Running script:", process)
    return process, log


def test_exec_second_signal_during_the_final_shutdown_exits_at_once(suite, project_dir):
    # The first Ctrl-C ends the script (its trap exits 0); the second comes during the shutdown.
    process, log = _exec(suite, project_dir, "trap 'exit 0' INT; touch started; while :; do sleep 0.05; done")
    while not (project_dir / "started").exists():
        assert process.poll() is None, log.read_text()
        time.sleep(0.05)
    hold = _hold_shutdown(project_dir)
    try:
        process.send_signal(signal.SIGINT)
        wait_for_line(log, "Script exited successfully (code 0)", process)
        time.sleep(0.15)
        process.send_signal(signal.SIGINT)
        status = process.wait(timeout=10)
    finally:
        hold.close()
    assert status == 130, log.read_text()
    assert "Received SIGINT for the second time. Exiting right now." in log.read_text()
    assert not (project_dir / "tmp" / "hub-demo-signals.json").exists()


def test_exec_signals_after_the_script_follow_the_start_rules(suite, project_dir):
    # The script ends by itself; a first signal during the shutdown only says so, a second exits.
    process, log = _exec(suite, project_dir, "while [ ! -e go ]; do sleep 0.05; done")
    hold = _hold_shutdown(project_dir)
    try:
        (project_dir / "go").touch()
        wait_for_line(log, "Script exited successfully (code 0)", process)
        process.send_signal(signal.SIGTERM)
        wait_for_line(log, "Received SIGTERM for the first time; the clean shutdown is under way.", process)
        time.sleep(0.15)
        process.send_signal(signal.SIGTERM)
        status = process.wait(timeout=10)
    finally:
        hold.close()
    assert status == 130, log.read_text()
    assert "Received SIGTERM for the second time. Exiting right now." in log.read_text()
