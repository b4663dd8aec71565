// The Realtime Database cases of the web-SDK suite, run by each database-*.test.mjs file with one
// API (modular or compat, a vendored version) over one transport (WebSocket, long-polling, or
// long-polling upgraded to a WebSocket). Each file runs in its own process, so a transport choice
// (forceLongPolling, the DOM that makes long-polling available in Node) stays in that file.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';

const port = Number(process.env.DATABASE_PORT);
const projectId = process.env.EMULATORS_PROJECT || 'demo-web';
const databaseURL = `https://${projectId}-default-rtdb.firebaseio.com`;

/** The modular API (ESM build) as the suite's small interface. */
export async function modular(version = '10.12.2') {
  const app = await import(`https://www.gstatic.com/firebasejs/${version}/firebase-app.js`);
  const d = await import(`https://www.gstatic.com/firebasejs/${version}/firebase-database.js`);
  return {
    name: `modular ${version}`,
    forceLongPolling: d.forceLongPolling,
    enableLogging: d.enableLogging,
    client(name) {
      const db = d.getDatabase(app.initializeApp({ projectId, databaseURL, apiKey: 'fake-api-key' }, name));
      d.connectDatabaseEmulator(db, '127.0.0.1', port);
      const at = (p) => d.ref(db, p);
      return {
        set: (p, v) => d.set(at(p), v),
        get: async (p) => (await d.get(at(p))).val(),
        update: (p, v) => d.update(at(p), v),
        remove: (p) => d.remove(at(p)),
        push: (p, v) => d.push(at(p), v).key,
        onValue: (p, cb, fail) => d.onValue(at(p), (s) => cb(s.val()), fail),
        queryFirst: async (p, child, n) => {
          const snap = await d.get(d.query(at(p), d.orderByChild(child), d.limitToFirst(n)));
          const keys = [];
          snap.forEach((c) => { keys.push(c.key); });
          return keys;
        },
        onQueryEqual: (p, child, value, cb) =>
          d.onValue(d.query(at(p), d.orderByChild(child), d.equalTo(value)), (s) => cb(s.val())),
        transaction: async (p, update) => (await d.runTransaction(at(p), update)).committed,
        onDisconnectSet: (p, v) => d.onDisconnect(at(p)).set(v),
        goOffline: () => d.goOffline(db),
        close: () => app.deleteApp(db.app),
      };
    },
  };
}

/** The compat (namespaced) API of a vendored version, loaded from its UMD bundles. */
export function compat(version) {
  const dir = path.join(process.env.FIREBASE_JS_SDK_DIR, version);
  for (const file of ['firebase-app-compat.js', 'firebase-database-compat.js']) {
    vm.runInThisContext(readFileSync(path.join(dir, file), 'utf8'), { filename: file });
  }
  const firebase = globalThis.firebase;
  let longPolling = false;
  return {
    name: `compat ${version}`,
    // The compat API has it on a database instance (db.INTERNAL), for every instance.
    forceLongPolling: () => { longPolling = true; },
    enableLogging: (logger) => firebase.database.enableLogging(logger),
    client(name) {
      const app = firebase.initializeApp({ projectId, databaseURL, apiKey: 'fake-api-key' }, name);
      const db = app.database();
      if (longPolling) {
        db.INTERNAL.forceLongPolling();
        longPolling = false;  // once: it is static, and warns once connections exist
      }
      db.useEmulator('127.0.0.1', port);
      return {
        set: (p, v) => db.ref(p).set(v),
        get: async (p) => (await db.ref(p).once('value')).val(),
        update: (p, v) => db.ref(p).update(v),
        remove: (p) => db.ref(p).remove(),
        push: (p, v) => db.ref(p).push(v).key,
        onValue: (p, cb, fail) => {
          const ref = db.ref(p);
          const listener = ref.on('value', (s) => cb(s.val()), fail);
          return () => ref.off('value', listener);
        },
        queryFirst: async (p, child, n) => {
          const snap = await db.ref(p).orderByChild(child).limitToFirst(n).once('value');
          const keys = [];
          snap.forEach((c) => { keys.push(c.key); });
          return keys;
        },
        onQueryEqual: (p, child, value, cb) => {
          const q = db.ref(p).orderByChild(child).equalTo(value);
          const listener = q.on('value', (s) => cb(s.val()));
          return () => q.off('value', listener);
        },
        transaction: async (p, update) => (await db.ref(p).transaction(update)).committed,
        onDisconnectSet: (p, v) => db.ref(p).onDisconnect().set(v),
        goOffline: () => db.goOffline(),
        close: () => app.delete(),
      };
    },
  };
}

/**
 * Registers the cases. `transport` is 'websocket', 'long-polling' or 'upgrade'; `lines` holds
 * the SDK's log lines (enableLogging), which tell the transports it used.
 */
export function databaseSuite(api, transport, lines) {
  const run = `${transport}-${api.name.replaceAll(/[ .]/g, '')}-${Date.now().toString(36)}`;
  const clients = [];
  const client = (name) => {
    const c = api.client(`${run}-${name}`);
    clients.push(c);
    return c;
  };
  after(async () => {
    for (const c of clients) await c.close().catch(() => {});
  });

  /** Resolves with the first value `predicate` accepts. */
  function waitFor(c, p, predicate, ms = 15000) {
    return new Promise((resolve, reject) => {
      let unsubscribe = () => {};
      const timer = setTimeout(() => { unsubscribe(); reject(new Error(`timed out waiting at ${p}`)); }, ms);
      unsubscribe = c.onValue(p, (v) => {
        if (predicate(v)) { clearTimeout(timer); setTimeout(unsubscribe, 0); resolve(v); }
      }, (e) => { clearTimeout(timer); reject(e); });
    });
  }

  const a = client('a');
  const b = client('b');
  const label = `${api.name} over ${transport}`;

  test(`${label}: set, get, update and remove (a value larger than one long-poll segment)`, async () => {
    const big = 'é😀x'.repeat(6000);
    await a.set(`${run}/crud/ada`, { name: 'Ada', born: 1815, big });
    assert.deepEqual(await b.get(`${run}/crud/ada`), { name: 'Ada', born: 1815, big });
    await a.update(`${run}/crud/ada`, { born: 1816, 'nested/ok': true });
    assert.deepEqual(await b.get(`${run}/crud/ada`), { name: 'Ada', born: 1816, big, nested: { ok: true } });
    await a.update(`${run}/crud`, { 'ada/name': 'Ada L.', 'bob/name': 'Bob' });
    assert.equal(await b.get(`${run}/crud/bob/name`), 'Bob');
    await a.remove(`${run}/crud/ada`);
    assert.equal(await b.get(`${run}/crud/ada`), null);
  });

  test(`${label}: a listener sees another client's writes`, async () => {
    const p = `${run}/watch/x`;
    const seen = waitFor(a, p, (v) => v?.n === 2);
    await b.set(p, { n: 1 });
    await b.set(p, { n: 2 });
    assert.deepEqual(await seen, { n: 2 });
    const gone = waitFor(a, p, (v) => v === null);
    await b.remove(p);
    await gone;
  });

  test(`${label}: queries (orderByChild with limitToFirst, a listener on equalTo)`, async () => {
    const p = `${run}/posts`;
    await a.set(p, { p1: { owner: 'ann', n: 3 }, p2: { owner: 'bo', n: 1 }, p3: { owner: 'ann', n: 2 } });
    assert.deepEqual(await b.queryFirst(p, 'n', 2), ['p2', 'p3']);
    const ann = await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('timed out waiting for the query')), 15000);
      let unsubscribe = () => {};
      unsubscribe = b.onQueryEqual(p, 'owner', 'ann', (v) => {
        if (v && Object.keys(v).length === 3) { clearTimeout(timer); setTimeout(unsubscribe, 0); resolve(v); }
      });
      a.push(p, { owner: 'ann', n: 9 });
    });
    assert.equal(Object.values(ann).filter((post) => post.owner === 'ann').length, 3);
  });

  test(`${label}: transactions from two clients`, async () => {
    const p = `${run}/counter`;
    await a.set(p, 0);
    const add = (c) => c.transaction(p, (n) => (n ?? 0) + 1);
    const results = await Promise.all([add(a), add(b), add(a), add(b), add(a), add(b)]);
    assert.deepEqual(results, [true, true, true, true, true, true]);
    assert.equal(await b.get(p), 6);
  });

  test(`${label}: onDisconnect runs when a client goes offline`, async () => {
    const c = client('leaver');
    const p = `${run}/presence/c`;
    await c.set(p, 'here');
    await c.onDisconnectSet(p, 'gone');
    const gone = waitFor(a, p, (v) => v === 'gone');
    c.goOffline();
    assert.equal(await gone, 'gone');
  });

  test(`${label}: a rules denial`, async () => {
    await assert.rejects(a.set('locked/x', 1), /PERMISSION_DENIED|permission_denied/i);
    await assert.rejects(a.get('locked'), /Permission denied|permission_denied/i);
    await a.set(`${run}/allowed`, 1);
  });

  test(`${label}: the transport used`, () => {
    const log = lines.join('\n');
    switch (transport) {
      case 'websocket':
        assert.match(log, /Websocket connecting to ws:/);
        assert.doesNotMatch(log, /Connecting via long-poll/);
        break;
      case 'long-polling':
        assert.match(log, /Connecting via long-poll to http:\/\/127\.0\.0\.1:\d+\/\.lp\?start=t/);
        assert.doesNotMatch(log, /Websocket connecting/);
        break;
      case 'upgrade':
        assert.match(log, /Connecting via long-poll/);
        assert.match(log, /Websocket connecting to ws:\/\/127\.0\.0\.1:\d+\/\.ws\?v=5&s=/);
        assert.match(log, /cleaning up and promoting a connection/);
        break;
    }
  });
}

/** Collects the SDK's log lines (and keeps them out of the test output). */
export function logLines(api) {
  const lines = [];
  api.enableLogging((line) => { if (lines.length < 20000) lines.push(String(line).slice(0, 300)); });
  return lines;
}
