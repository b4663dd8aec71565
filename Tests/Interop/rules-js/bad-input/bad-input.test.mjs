// Bad input on the JS/HTTP side, with the official emulators' answers: malformed tokens, a
// token for another project, claims at the edges of JSON, rules uploads that do not compile
// (the previous rules stay; the error names file, line and column), and a clear during a listen.
import { describe, test, before, after, beforeEach } from 'node:test';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { firestoreSDKMissing, rulesDir, sdkMissing } from '../support/environment.mjs';
import {
  baseURL, initializeTestEnvironment, loadDatabaseRules, loadFirestoreRules, sdk,
} from '../support/rules-unit-testing.mjs';
import { base64url } from '../support/mock-token.mjs';
import { DatabaseREST } from '../support/database-rest.mjs';
import { FirestoreREST } from '../support/firestore-rest.mjs';
import { Arrivals, assert, expectVerdict, withTimeout } from '../support/verdicts.mjs';

const projectId = 'demo-rules-bad-input';
const databaseRules = readFileSync(path.join(rulesDir, 'bad-input/database.rules.json'), 'utf8');
const firestoreRules = readFileSync(path.join(rulesDir, 'bad-input/firestore.rules'), 'utf8');

const header = base64url(JSON.stringify({ alg: 'none', type: 'JWT' }));
const payload = base64url(JSON.stringify({ sub: 'alice', user_id: 'alice', iat: 0, exp: 3600 }));
// [name, token, 'firestore' when only Firestore's answer is documented]: the Firestore emulator
// refuses any token whose first two parts are not base64 JSON objects (firebase-tools#2010);
// what the RTDB emulator does with a broken header but a good payload is not documented.
const malformedTokens = [
  ['one segment', 'not-a-jwt'],
  ['header not base64 JSON', `!!.${payload}.`, 'firestore'],
  ['header JSON but not an object', `${base64url('"alg"')}.${payload}.`, 'firestore'],
  ['payload not JSON', `${header}.${base64url('{"sub": alice}')}.`],
  ['payload a JSON array', `${header}.${base64url('["alice"]')}.`],
  ['four segments', `${header}.${payload}..`],
];

const edgeClaims = {
  text: 'é✓😀 "quoted"', big: 9007199254740991, negative: -7, tiny: 0.0000001,
  nested: { inner: { deeper: true } }, lists: [[], [2, [3]]], empty_map: {}, empty_text: '',
};
const otherProject = { aud: 'demo-other-project', iss: 'https://securetoken.google.com/demo-other-project' };

let env;
let firestoreSDK;

before(async () => {
  env = await initializeTestEnvironment({
    projectId, database: { rules: databaseRules }, firestore: { rules: firestoreRules },
  });
  firestoreSDK = await firestoreSDKMissing(env.emulators.firestore, projectId);
});

after(async () => {
  await env?.cleanup();
});

beforeEach(async () => {
  await loadDatabaseRules(env.emulators.database, projectId, databaseRules);
  await loadFirestoreRules(env.emulators.firestore, projectId, firestoreRules);
  await env.withSecurityRulesDisabled(async (owner) => {
    await owner.databaseREST().set('', { audience: 'a', edges: 'e', room: { n: 1 }, openly: 'o' });
    await env.clearFirestore();
    await owner.firestoreREST().commit([
      { set: ['audience/d', { v: 'a' }] }, { set: ['edges/d', { v: 'e' }] }, { set: ['room/d', { n: 1 }] }, { set: ['openly/d', { v: 'o' }] },
    ]);
  });
});

function databaseBase() {
  return baseURL(env.emulators.database);
}

function firestoreBase() {
  return baseURL(env.emulators.firestore);
}

/** Opens the RTDB wire protocol, waits for the server's handshake, and returns a reply reader. */
async function openWire() {
  const socket = new WebSocket(`ws://${env.emulators.database.host}:${env.emulators.database.port}/.ws?v=5&ns=${projectId}`);
  const frames = new Arrivals('RTDB wire reply');
  socket.addEventListener('message', (event) => frames.push(JSON.parse(event.data)));
  await withTimeout(new Promise((resolve, reject) => {
    socket.addEventListener('open', resolve);
    socket.addEventListener('error', reject);
  }), 10000, 'RTDB WebSocket open');
  await frames.first((frame) => frame.t === 'c');
  return { socket, frames };
}

describe('malformed tokens', () => {
  for (const [name, token, only] of malformedTokens) {
    if (only !== 'firestore') {
      test(`RTDB REST, Bearer: ${name} → 401 Could not parse auth token.`, async () => {
        const error = await new DatabaseREST(databaseBase(), projectId, token, 'bearer').get('openly').then(() => undefined, (caught) => caught);
        assert.ok(error, 'the request must fail');
        assert.equal(error.status, 401);
        assert.deepEqual(error.body, { error: 'Could not parse auth token.' });
      });

      test(`RTDB REST, ?auth=: ${name} → 401 Could not parse auth token.`, async () => {
        const error = await new DatabaseREST(databaseBase(), projectId, token, 'query').get('openly').then(() => undefined, (caught) => caught);
        assert.ok(error, 'the request must fail');
        assert.equal(error.status, 401);
        assert.deepEqual(error.body, { error: 'Could not parse auth token.' });
      });

      test(`RTDB WebSocket auth: ${name} → invalid_token`, async () => {
        const { socket, frames } = await openWire();
        try {
          socket.send(JSON.stringify({ t: 'd', d: { r: 1, a: 'auth', b: { cred: token } } }));
          const reply = await frames.first((frame) => frame.t === 'd' && frame.d?.r === 1);
          assert.deepEqual(reply.d.b, { s: 'invalid_token', d: 'Could not parse auth token.' });
        } finally {
          socket.close();
        }
      });
    }

    test(`Firestore REST: ${name} → 400 INVALID_ARGUMENT invalid jwt`, async () => {
      const error = await new FirestoreREST(firestoreBase(), projectId, token).get('openly/d').then(() => undefined, (caught) => caught);
      assert.ok(error, 'the request must fail');
      assert.equal(error.status, 400);
      assert.equal(error.body?.error?.status, 'INVALID_ARGUMENT');
      assert.equal(error.body?.error?.message, 'invalid jwt');
    });
  }
});

describe('a token minted for another project is accepted, its claims apply', () => {
  test('RTDB REST', async () => {
    const context = env.authenticatedContext('alice', otherProject);
    assert.equal(await context.databaseREST().get('audience'), 'a');
    assert.equal(await context.databaseREST('query').get('audience'), 'a');
  });

  test('RTDB SDK (WebSocket)', { skip: sdkMissing }, async () => {
    const { database } = await sdk();
    const context = env.authenticatedContext('alice', otherProject);
    try {
      const value = await expectVerdict(true, async () => (await database.get(database.ref(await context.database(), 'audience'))).val(), 'get /audience');
      assert.equal(value, 'a');
    } finally {
      await context.cleanup();
    }
  });

  test('Firestore REST', async () => {
    const context = env.authenticatedContext('alice', otherProject);
    assert.deepEqual(await context.firestoreREST().get('audience/d'), { v: 'a' });
  });

  test('the same rule denies a token for this project', async () => {
    const context = env.authenticatedContext('alice');
    await expectVerdict(false, () => context.databaseREST().get('audience'), 'RTDB get /audience');
    await expectVerdict(false, () => context.firestoreREST().get('audience/d'), 'Firestore get audience/d');
  });
});

describe('claims at the edges of JSON (unicode, 2^53-1, negative, tiny, nested, empty)', () => {
  test('RTDB REST, Bearer and ?auth=', async () => {
    const context = env.authenticatedContext('alice', edgeClaims);
    assert.equal(await context.databaseREST().get('edges'), 'e');
    assert.equal(await context.databaseREST('query').get('edges'), 'e');
  });

  test('RTDB SDK (WebSocket)', { skip: sdkMissing }, async () => {
    const { database } = await sdk();
    const context = env.authenticatedContext('alice', edgeClaims);
    try {
      const value = await expectVerdict(true, async () => (await database.get(database.ref(await context.database(), 'edges'))).val(), 'get /edges');
      assert.equal(value, 'e');
    } finally {
      await context.cleanup();
    }
  });

  test('Firestore REST', async () => {
    const context = env.authenticatedContext('alice', edgeClaims);
    assert.deepEqual(await context.firestoreREST().get('edges/d'), { v: 'e' });
  });

  test('one claim off denies, on both emulators', async () => {
    const context = env.authenticatedContext('alice', { ...edgeClaims, text: 'e✓😀 "quoted"' });
    await expectVerdict(false, () => context.databaseREST().get('edges'), 'RTDB get /edges');
    await expectVerdict(false, () => context.firestoreREST().get('edges/d'), 'Firestore get edges/d');
  });
});

describe('a rules upload that does not compile', () => {
  test('RTDB: 400 naming file, line and column; the previous rules stay', async () => {
    const broken = '{\n  "rules": {\n    ".read": "auth != null &&",\n    ".write": true\n  }\n}\n';
    const error = await loadDatabaseRules(env.emulators.database, projectId, broken).then(() => undefined, (caught) => caught);
    assert.ok(error, 'the upload must fail');
    const body = JSON.parse(error.message);
    assert.match(body.error, /^database\.rules\.json:3:\d+: /, 'file and line of the broken expression');
    const response = await fetch(`${databaseBase()}/.settings/rules.json?ns=${projectId}`, { headers: { Authorization: 'Bearer owner' } });
    assert.equal(await response.text(), databaseRules);
    // Still the old rules: /openly is readable signed out, not writable.
    const signedOut = env.unauthenticatedContext();
    assert.equal(await signedOut.databaseREST().get('openly'), 'o');
    await expectVerdict(false, () => signedOut.databaseREST().set('openly', 'x'), 'RTDB set /openly');
  });

  test('RTDB: JSON that does not parse names its line and column', async () => {
    const error = await loadDatabaseRules(env.emulators.database, projectId, '{\n  "rules": {\n    ".read": true,\n').then(() => undefined, (caught) => caught);
    assert.ok(error, 'the upload must fail');
    assert.match(JSON.parse(error.message).error, /^database\.rules\.json:\d+:\d+: /);
  });

  test('Firestore: 400 with an issue naming file, line and column; the previous rules stay', async () => {
    const broken = "rules_version = '2';\nservice cloud.firestore {\n  match /databases/{database}/documents {\n    match /openly/{doc} { allow read: if ; }\n  }\n}\n";
    const response = await fetch(`${firestoreBase()}/emulator/v1/projects/${projectId}:securityRules`, {
      method: 'PUT', body: JSON.stringify({ rules: { files: [{ content: broken }] } }),
    });
    assert.equal(response.status, 400);
    const { issues } = await response.json();
    assert.ok(issues.length >= 1);
    assert.equal(issues[0].severity, 'ERROR');
    assert.equal(issues[0].sourcePosition.line, 4);
    assert.equal(issues[0].sourcePosition.column, broken.split('\n')[3].indexOf(';') + 1);
    assert.equal(typeof issues[0].sourcePosition.fileName, 'string');
    assert.ok(issues[0].description.length > 0);
    // Still the old rules: /openly is readable signed out, not writable.
    const signedOut = env.unauthenticatedContext();
    assert.deepEqual(await signedOut.firestoreREST().get('openly/d'), { v: 'o' });
    await expectVerdict(false, () => signedOut.firestoreREST().set('openly/d', { v: 'x' }), 'Firestore set openly/d');
    // The library surfaces the same answer as its error.
    await assert.rejects(loadFirestoreRules(env.emulators.firestore, projectId, broken), /sourcePosition/);
  });
});

/** Reads an RTDB REST event stream (`Accept: text/event-stream`) into a list of events. */
async function openEventStream(where, token) {
  const controller = new AbortController();
  const url = `${databaseBase()}/${where}.json?ns=${projectId}${token ? `&auth=${token}` : ''}`;
  const response = await fetch(url, { headers: { Accept: 'text/event-stream' }, signal: controller.signal });
  assert.equal(response.status, 200);
  const events = new Arrivals(`event on /${where}`);
  (async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of response.body) {
        buffer += decoder.decode(chunk, { stream: true });
        let end;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const event = /^event: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          events.push({ event, data: data === undefined ? undefined : JSON.parse(data) });
        }
      }
    } catch {
      // Aborted at the end of the test.
    }
  })();
  return { events, close: () => controller.abort() };
}

describe('a clear during a listen', () => {
  test('RTDB: the SDK listener sees null after clearDatabase', { skip: sdkMissing }, async () => {
    const { database } = await sdk();
    const context = env.authenticatedContext('alice');
    const values = new Arrivals('onValue /room');
    try {
      const unsubscribe = database.onValue(database.ref(await context.database(), 'room'), (snapshot) => values.push(snapshot.val()));
      await values.until((value) => value?.n === 1);
      await env.clearDatabase();
      assert.equal(await values.until((value) => value === null), null);
      unsubscribe();
    } finally {
      await context.cleanup();
    }
  });

  test('RTDB: a REST event stream gets put / null after clearDatabase', { skip: sdkMissing }, async () => {
    const context = env.authenticatedContext('alice');
    const stream = await openEventStream('room', context.token);
    try {
      await stream.events.first((event) => event.event === 'put' && event.data?.data?.n === 1);
      await env.clearDatabase();
      const cleared = await stream.events.first((event) => event.event === 'put' && event.data?.data === null);
      assert.equal(cleared.data.path, '/');
    } finally {
      stream.close();
    }
  });

  test('Firestore: an SDK listener sees the documents go after clearFirestore', async (t) => {
    if (firestoreSDK) return t.skip(firestoreSDK);
    const { firestore: fs } = await sdk({ firestore: true });
    const context = env.authenticatedContext('alice');
    const sizes = new Arrivals('onSnapshot room');
    try {
      const db = await context.firestore();
      const unsubscribe = fs.onSnapshot(fs.collection(db, 'room'), (snapshot) => sizes.push(snapshot.size));
      await sizes.until((size) => size === 1);
      await env.clearFirestore();
      await sizes.until((size) => size === 0);
      unsubscribe();
    } finally {
      await context.cleanup();
    }
  });
});
