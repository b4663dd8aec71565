"""The official Admin SDK, pointed at the suite by the usual variables, reaches our ports.

Until the emulators land the answers are 501; these tests pin that the SDK's requests arrive
here (and fail fast), not at production. Later issues replace them with real behaviour.
"""

import firebase_admin
import pytest
import requests
from firebase_admin import db, exceptions


@pytest.fixture(scope="module")
def app(suite):
    app = firebase_admin.initialize_app(
        options={"projectId": suite.project, "databaseURL": f"https://{suite.project}-default-rtdb.firebaseio.com"},
        name="interop-admin",
    )
    yield app
    firebase_admin.delete_app(app)


def test_realtime_database_reference_reaches_the_database_port(suite, app):
    # The production-style databaseURL names the namespace; the env variable redirects to us.
    reference = db.reference("/interop/admin-sdk", app=app)
    reference.set({"reached": True})
    assert reference.get() == {"reached": True}
    response = requests.get(
        f"http://{suite.database}/interop/admin-sdk.json?ns={suite.project}-default-rtdb", timeout=10
    )
    assert response.json() == {"reached": True}
