"""`emulators exec` runs a command against a started suite and passes its exit status on."""

import json

from conftest import run_cli


def test_exec_sets_the_emulator_variables(suite, project_dir):
    config = json.loads((project_dir / "firebase.json").read_text())["emulators"]
    out = project_dir / "env.json"
    script = (
        "python3 -c 'import json, os; json.dump({k: os.environ.get(k) for k in "
        '["FIRESTORE_EMULATOR_HOST", "FIREBASE_DATABASE_EMULATOR_HOST", "FIREBASE_EMULATOR_HUB", "GCLOUD_PROJECT"]}, '
        f"open(\"{out}\", \"w\"))'"
    )
    result = run_cli(suite.binary, "exec", "--project", "demo-exec", script, cwd=project_dir)
    assert result.returncode == 0, result.stderr
    assert json.loads(out.read_text()) == {
        "FIRESTORE_EMULATOR_HOST": f"127.0.0.1:{config['firestore']['port']}",
        "FIREBASE_DATABASE_EMULATOR_HOST": f"127.0.0.1:{config['database']['port']}",
        "FIREBASE_EMULATOR_HUB": f"127.0.0.1:{config['hub']['port']}",
        "GCLOUD_PROJECT": "demo-exec",
    }
    assert "Running script:" in result.stdout
    assert "Script exited successfully (code 0)" in result.stdout


def test_exec_returns_the_commands_exit_code(suite, project_dir):
    result = run_cli(suite.binary, "emulators:exec", "exit 7", cwd=project_dir)
    assert result.returncode == 7
    assert "Script exited unsuccessfully (code 7)" in result.stdout


def test_exec_returns_2_when_the_command_dies_by_a_signal(suite, project_dir):
    result = run_cli(suite.binary, "exec", "kill -9 $$", cwd=project_dir)
    assert result.returncode == 2
    assert "Script exited with signal: SIGKILL" in result.stdout


def test_exec_script_reaches_the_started_emulators(suite, project_dir):
    script = 'python3 -c "import os, urllib.request as u; u.urlopen(\'http://\' + os.environ[\'FIREBASE_EMULATOR_HUB\'] + \'/emulators\')"'
    result = run_cli(suite.binary, "exec", script, cwd=project_dir)
    assert result.returncode == 0, result.stdout + result.stderr


def test_exec_exits_1_when_the_suite_cannot_start(suite, project_dir):
    config = json.loads((project_dir / "firebase.json").read_text())
    config["emulators"]["database"]["port"] = suite.database_port
    (project_dir / "firebase.json").write_text(json.dumps(config))
    result = run_cli(suite.binary, "exec", "exit 0", cwd=project_dir)
    assert result.returncode == 1
    assert "Could not start Database Emulator, port taken." in result.stderr


def test_exec_only_starts_the_named_emulators(suite, project_dir):
    out = project_dir / "emulators.json"
    script = (
        "python3 -c \"import os, urllib.request as u; "
        f"open('{out}', 'wb').write(u.urlopen('http://' + os.environ['FIREBASE_EMULATOR_HUB'] + '/emulators').read())\""
    )
    result = run_cli(suite.binary, "exec", "--only", "firestore", script, cwd=project_dir)
    assert result.returncode == 0, result.stdout + result.stderr
    assert set(json.loads(out.read_text())) == {"firestore", "hub"}
    assert "Starting emulators: firestore\n" in result.stdout
