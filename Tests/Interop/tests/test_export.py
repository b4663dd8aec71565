"""`emulators export` client side: finding the suite and the official error strings."""

import os

from conftest import run_cli


def test_export_without_a_running_suite_says_so(suite, project_dir):
    result = run_cli(suite.binary, "export", "out", "--project", "demo-nobody-home", cwd=project_dir)
    assert result.returncode == 1
    assert "Did not find any running emulators for project demo-nobody-home." in result.stderr


def test_export_finds_the_running_suite_through_its_locator(suite, tmp_path):
    env = {"TMPDIR": os.environ["TMPDIR"]}
    result = run_cli(suite.binary, "export", str(tmp_path / "backup"), "--project", suite.project, cwd=tmp_path, env=env)
    assert f"Found running emulator hub for project {suite.project} at http://{suite.hub}" in result.stdout
    assert result.returncode == 0, result.stderr
    assert "Export complete" in result.stdout
    assert (tmp_path / "backup" / "firebase-export-metadata.json").is_file()


def test_export_refuses_to_overwrite_without_force(suite, tmp_path):
    target = tmp_path / "backup"
    target.mkdir()
    (target / "firebase-export-metadata.json").write_text("{}")
    env = {"TMPDIR": os.environ["TMPDIR"]}
    result = run_cli(suite.binary, "export", str(target), "--project", suite.project, cwd=tmp_path, env=env)
    assert result.returncode == 1
    assert "Export already exists in the target directory, re-run with --force to overwrite." in result.stderr
