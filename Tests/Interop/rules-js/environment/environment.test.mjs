// What initializeTestEnvironment and the environment's helpers call, with the official answers:
// discovery through FIREBASE_EMULATOR_HUB and the hub's /emulators, rules loading, clearing,
// and the hub's Functions trigger switches (400 when no Functions emulator runs).
import { describe, test, after } from 'node:test';
import { hostAndPort } from '../support/environment.mjs';
import {
  discoverEmulators, initializeTestEnvironment, withFunctionTriggersDisabled,
} from '../support/rules-unit-testing.mjs';
import { assert } from '../support/verdicts.mjs';

const projectId = 'demo-rules-environment';
const environments = [];

after(async () => {
  await Promise.all(environments.map((env) => env.cleanup()));
});

async function environment(config) {
  const env = await initializeTestEnvironment({ projectId, ...config });
  environments.push(env);
  return env;
}

describe('discovery', () => {
  test("the hub's /emulators lists both emulators and itself where the variables say", async () => {
    const hub = hostAndPort('FIREBASE_EMULATOR_HUB');
    assert.ok(hub, 'FIREBASE_EMULATOR_HUB is set by the run script');
    const found = await discoverEmulators(hub);
    assert.deepEqual(found.hub, hub);
    assert.deepEqual(found.firestore, hostAndPort('FIRESTORE_EMULATOR_HOST'));
    assert.deepEqual(found.database, hostAndPort('FIREBASE_DATABASE_EMULATOR_HOST'));
    assert.equal(found.storage, undefined);
  });
});

describe('rules loading and clearing', () => {
  test('rules load through both endpoints and apply at once', async () => {
    const env = await environment({
      database: { rules: '{"rules": {".read": false, ".write": false}}' },
      firestore: { rules: "rules_version = '2';\nservice cloud.firestore {\n  match /databases/{db}/documents {\n    match /{doc=**} { allow read, write: if false; }\n  }\n}\n" },
    });
    const signedOut = env.unauthenticatedContext();
    await assert.rejects(signedOut.databaseREST().get('x'), { status: 401 });
    await assert.rejects(signedOut.firestoreREST().get('x/y'), { status: 403 });
    await environment({
      database: { rules: '{"rules": {".read": true, ".write": true}}' },
      firestore: { rules: "rules_version = '2';\nservice cloud.firestore {\n  match /databases/{db}/documents {\n    match /{doc=**} { allow read, write: if true; }\n  }\n}\n" },
    });
    assert.equal(await signedOut.databaseREST().get('x'), null);
    assert.equal(await signedOut.firestoreREST().get('x/y'), undefined);
  });

  test('clearDatabase and clearFirestore empty only this project', async () => {
    const env = await environment({});
    const other = await initializeTestEnvironment({ projectId: 'demo-rules-environment-other' });
    environments.push(other);
    for (const target of [env, other]) {
      await target.withSecurityRulesDisabled(async (owner) => {
        await owner.databaseREST().set('kept', 1);
        await owner.firestoreREST().set('kept/doc', { v: 1 });
      });
    }
    await env.clearDatabase();
    await env.clearFirestore();
    await env.withSecurityRulesDisabled(async (owner) => {
      assert.equal(await owner.databaseREST().get(''), null);
      assert.equal(await owner.firestoreREST().get('kept/doc'), undefined);
    });
    await other.withSecurityRulesDisabled(async (owner) => {
      assert.equal(await owner.databaseREST().get('kept'), 1);
      assert.deepEqual(await owner.firestoreREST().get('kept/doc'), { v: 1 });
    });
  });
});

describe('withFunctionTriggersDisabled', () => {
  test('with no Functions emulator the hub answers 400 and the callback does not run', async () => {
    let ran = false;
    await assert.rejects(
      withFunctionTriggersDisabled(hostAndPort('FIREBASE_EMULATOR_HUB'), () => { ran = true; }),
      { message: 'HTTP Error 400 when disabling functions triggers, are you using firebase-tools 8.13.0 or higher?' },
    );
    assert.equal(ran, false);
  });
});
