"""pytest plugin: lifts the system tests' "under the emulator" skips this suite can serve.

The system tests of google-cloud-firestore mark what the official emulator lacks with
``@pytest.mark.skipif(FIRESTORE_EMULATOR, reason=...)``. ``SYSTEM_TESTS_LIFT`` (comma-separated)
names the skips to drop: ``partition`` (PartitionQuery), ``explain`` (query profile / explain
options of queries, aggregations and transactions; not of pipelines or vector searches, which
this suite does not serve), or any other text, matched against the skip reason. Empty (the
default here; Tests/Interop/run lifts ``partition,explain``) lifts nothing.
"""

import os

# name -> (text of the skip reason, whether a test of that name is lifted)
_NAMED = {
    "partition": ("PartitionQuery not implemented in emulator", lambda name: True),
    "explain": ("Query profile not supported in emulator",
                lambda name: not name.startswith("test_pipeline") and "vector" not in name),
}


def _wanted():
    raw = os.environ.get("SYSTEM_TESTS_LIFT", "")
    parts = [p.strip() for p in raw.split(",") if p.strip()]
    return [_NAMED.get(p, (p, lambda name: True)) for p in parts]


def _reason(mark):
    return str(mark.kwargs.get("reason", mark.args[1] if len(mark.args) > 1 else ""))


def pytest_collection_modifyitems(config, items):
    wanted = _wanted()
    if not wanted:
        return
    lifted = 0
    for item in items:
        name = getattr(item, "originalname", None) or item.name
        keep = [m for m in item.own_markers
                if not (m.name == "skipif" and any(text in _reason(m) and applies(name) for text, applies in wanted))]
        if len(keep) != len(item.own_markers):
            item.own_markers[:] = keep
            lifted += 1
    config._lifted_skips = lifted


def pytest_report_header(config):
    wanted = _wanted()
    return "lifted emulator skips: " + (", ".join(text for text, _ in wanted) if wanted else "none")
