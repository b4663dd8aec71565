// The compat (namespaced, v8-style) API of a vendored SDK version, loaded from its UMD bundles
// into this process's global scope, against the emulator's Firestore. Each *.test.mjs file runs
// in its own process, so each version gets a clean `globalThis.firebase`.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';

export function compatSuite(version) {
  const dir = path.join(process.env.FIREBASE_JS_SDK_DIR, version);
  for (const file of ['firebase-app-compat.js', 'firebase-firestore-compat.js']) {
    vm.runInThisContext(readFileSync(path.join(dir, file), 'utf8'), { filename: file });
  }
  const firebase = globalThis.firebase;
  firebase.firestore.setLogLevel(process.env.FIRESTORE_LOG_LEVEL || 'silent');
  const port = Number(process.env.FIRESTORE_PORT);
  const projectId = process.env.EMULATORS_PROJECT || 'demo-web';
  const run = `compat${version.replaceAll('.', '')}${Date.now().toString(36)}`;
  const apps = [];

  function client(name, settings) {
    const app = firebase.initializeApp({ projectId, apiKey: 'fake-api-key' }, `${run}-${name}`);
    apps.push(app);
    const db = app.firestore();
    if (settings) db.settings(settings);
    db.useEmulator('127.0.0.1', port);
    return db;
  }

  after(async () => {
    for (const app of apps) await app.delete().catch(() => {});
  });

  function waitFor(ref, predicate, ms = 15000) {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => { unsubscribe(); reject(new Error('timed out waiting for a snapshot')); }, ms);
      const unsubscribe = ref.onSnapshot({ includeMetadataChanges: true }, (snap) => {
        if (predicate(snap)) { clearTimeout(timer); unsubscribe(); resolve(snap); }
      }, (error) => { clearTimeout(timer); reject(error); });
    });
  }

  const a = client('a');
  const b = client('b');
  const { FieldValue } = firebase.firestore;

  test(`compat ${version}: set, get, update, delete and a query listener`, async () => {
    const col = `${run}-docs`;
    const listening = waitFor(a.collection(col).where('open', '==', true).orderBy('n').limit(2),
      (s) => s.size === 2 && s.docs[0].id === 'x' && !s.metadata.hasPendingWrites);
    await b.collection(col).doc('x').set({ open: true, n: 1 });
    await b.collection(col).doc('y').set({ open: true, n: 2 });
    await b.collection(col).doc('z').set({ open: true, n: 3 });
    assert.deepEqual((await listening).docs.map((d) => d.id), ['x', 'y']);
    await a.collection(col).doc('x').update({ n: FieldValue.increment(10), at: FieldValue.serverTimestamp() });
    const x = await b.collection(col).doc('x').get();
    assert.equal(x.get('n'), 11);
    assert.ok(x.get('at') instanceof firebase.firestore.Timestamp);
    await a.collection(col).doc('x').delete();
    assert.equal((await b.collection(col).doc('x').get()).exists, false);
  });

  test(`compat ${version}: a transaction and a batch`, async () => {
    const ref = a.collection(`${run}-tx`).doc('c');
    await ref.set({ n: 1, tags: ['a'] });
    await b.runTransaction(async (tx) => {
      const s = await tx.get(b.collection(`${run}-tx`).doc('c'));
      tx.update(s.ref, { n: s.get('n') * 7, tags: FieldValue.arrayUnion('b') });
    });
    const batch = a.batch();
    batch.set(a.collection(`${run}-tx`).doc('d'), { n: 2 });
    batch.delete(a.collection(`${run}-tx`).doc('nothing'));
    await batch.commit();
    const snap = await b.collection(`${run}-tx`).orderBy('n').get();
    assert.deepEqual(snap.docs.map((d) => [d.id, d.get('n')]), [['d', 2], ['c', 7]]);
    assert.deepEqual(snap.docs[1].get('tags'), ['a', 'b']);
  });

  test(`compat ${version}: experimentalForceLongPolling`, async () => {
    const lp = client('longpoll', { experimentalForceLongPolling: true, experimentalAutoDetectLongPolling: false, merge: true });
    const col = `${run}-lp`;
    const seen = waitFor(lp.collection(col), (s) => s.size === 2 && !s.metadata.hasPendingWrites);
    await b.collection(col).doc('one').set({ v: 1 });
    await lp.collection(col).doc('two').set({ v: 2 });
    assert.deepEqual((await seen).docs.map((d) => d.id), ['one', 'two']);
  });
}
