"""pytest plugin: lifts the system tests' "under the emulator" skips this suite can serve.

The system tests of google-cloud-firestore mark what the official emulator lacks with
``@pytest.mark.skipif(FIRESTORE_EMULATOR, reason=...)``. ``SYSTEM_TESTS_LIFT`` (comma-separated)
names the skips to drop: ``partition`` (PartitionQuery), ``explain`` (query profile / explain
options), or any other text, matched against the skip reason. Empty (the default) lifts nothing.
"""

import os

_NAMED = {
    "partition": "PartitionQuery not implemented in emulator",
    "explain": "Query profile not supported in emulator",
}


def _wanted():
    raw = os.environ.get("SYSTEM_TESTS_LIFT", "")
    return [_NAMED.get(p.strip(), p.strip()) for p in raw.split(",") if p.strip()]


def _reason(mark):
    return str(mark.kwargs.get("reason", mark.args[1] if len(mark.args) > 1 else ""))


def pytest_collection_modifyitems(config, items):
    wanted = _wanted()
    if not wanted:
        return
    lifted = 0
    for item in items:
        keep = [m for m in item.own_markers
                if not (m.name == "skipif" and any(w in _reason(m) for w in wanted))]
        if len(keep) != len(item.own_markers):
            item.own_markers[:] = keep
            lifted += 1
    config._lifted_skips = lifted


def pytest_report_header(config):
    wanted = _wanted()
    return "lifted emulator skips: " + (", ".join(wanted) if wanted else "none")
