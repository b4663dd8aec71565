// The unmodified Firebase JS SDK (modular ESM build) against the emulator's Firestore over
// WebChannel (Listen and Write streams) and REST (batchGet, commit, runAggregationQuery).
// Run by Tests/Interop/web/run, which starts the emulator and sets FIRESTORE_PORT.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { initializeApp, deleteApp } from 'https://www.gstatic.com/firebasejs/10.12.2/firebase-app.js';
import {
  initializeFirestore, connectFirestoreEmulator, doc, collection, setDoc, getDoc, getDocs, updateDoc,
  deleteDoc, onSnapshot, query, where, orderBy, limit, startAfter, endBefore, runTransaction,
  writeBatch, serverTimestamp, increment, arrayUnion, getCountFromServer, terminate, Timestamp, setLogLevel,
} from 'https://www.gstatic.com/firebasejs/10.12.2/firebase-firestore.js';

const port = Number(process.env.FIRESTORE_PORT);
const projectId = process.env.EMULATORS_PROJECT || 'demo-web';
const run = `web${Date.now().toString(36)}`;
const apps = [];
const dbs = [];

// Transactions retried after contention log warnings; the assertions say what matters.
setLogLevel(process.env.FIRESTORE_LOG_LEVEL || 'silent');

function client(name, settings = {}) {
  const app = initializeApp({ projectId, apiKey: 'fake-api-key' }, `${run}-${name}`);
  apps.push(app);
  const db = initializeFirestore(app, settings);
  connectFirestoreEmulator(db, '127.0.0.1', port);
  dbs.push(db);
  return db;
}

after(async () => {
  for (const db of dbs) {
    await terminate(db).catch(() => {});
  }
  for (const app of apps) {
    await deleteApp(app).catch(() => {});
  }
});

/** Resolves with the first snapshot `predicate` accepts; rejects on a listener error. */
function waitFor(ref, predicate, ms = 15000) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => { unsubscribe(); reject(new Error('timed out waiting for a snapshot')); }, ms);
    const unsubscribe = onSnapshot(ref, (snap) => {
      if (predicate(snap)) { clearTimeout(timer); unsubscribe(); resolve(snap); }
    }, (error) => { clearTimeout(timer); reject(error); });
  });
}

const a = client('a');
const b = client('b');

test('set, get, update and delete a document', async () => {
  const ref = doc(a, `${run}-crud`, 'ada');
  await setDoc(ref, { name: 'Ada', born: 1815, tags: ['math'] });
  let snap = await getDoc(ref);
  assert.equal(snap.exists(), true);
  assert.deepEqual(snap.data(), { name: 'Ada', born: 1815, tags: ['math'] });
  await updateDoc(ref, { born: 1816, 'nested.ok': true });
  snap = await getDoc(doc(b, `${run}-crud`, 'ada'));
  assert.equal(snap.get('born'), 1816);
  assert.equal(snap.get('nested.ok'), true);
  await deleteDoc(ref);
  snap = await getDoc(ref);
  assert.equal(snap.exists(), false);
});

test('onSnapshot on a document sees another client\'s writes', async () => {
  const path = [`${run}-docwatch`, 'x'];
  const seen = waitFor(doc(a, ...path), (s) => s.exists() && s.get('n') === 2 && !s.metadata.hasPendingWrites);
  await setDoc(doc(b, ...path), { n: 1 });
  await setDoc(doc(b, ...path), { n: 2 });
  const snap = await seen;
  assert.equal(snap.get('n'), 2);
  const gone = waitFor(doc(a, ...path), (s) => !s.exists());
  await deleteDoc(doc(b, ...path));
  await gone;
});

test('onSnapshot on a query sees another client\'s adds, changes and removals', async () => {
  const name = `${run}-querywatch`;
  const q = query(collection(a, name), where('open', '==', true));
  const three = waitFor(q, (s) => s.size === 3);
  await setDoc(doc(b, name, 'one'), { open: true, n: 1 });
  await setDoc(doc(b, name, 'two'), { open: true, n: 2 });
  await setDoc(doc(b, name, 'three'), { open: true, n: 3 });
  await setDoc(doc(b, name, 'closed'), { open: false, n: 4 });
  assert.deepEqual((await three).docs.map((d) => d.id).sort(), ['one', 'three', 'two']);
  const two = waitFor(q, (s) => s.size === 2 && !s.docs.some((d) => d.id === 'two'));
  await updateDoc(doc(b, name, 'two'), { open: false });
  await two;
});

test('where, orderBy, limit and cursors', async () => {
  const name = `${run}-query`;
  const batch = writeBatch(a);
  for (let i = 0; i < 10; i++) batch.set(doc(a, name, `d${i}`), { i, even: i % 2 === 0 });
  await batch.commit();
  const col = collection(b, name);
  let snap = await getDocs(query(col, where('even', '==', true), orderBy('i', 'desc'), limit(3)));
  assert.deepEqual(snap.docs.map((d) => d.get('i')), [8, 6, 4]);
  snap = await getDocs(query(col, orderBy('i'), startAfter(6)));
  assert.deepEqual(snap.docs.map((d) => d.get('i')), [7, 8, 9]);
  snap = await getDocs(query(col, orderBy('i'), endBefore(2)));
  assert.deepEqual(snap.docs.map((d) => d.get('i')), [0, 1]);
  snap = await getDocs(query(col, where('i', 'in', [1, 5, 42])));
  assert.deepEqual(snap.docs.map((d) => d.id).sort(), ['d1', 'd5']);
});

test('runTransaction reads and writes atomically', async () => {
  const ref = doc(a, `${run}-tx`, 'counter');
  await setDoc(ref, { n: 0 });
  await Promise.all([1, 2, 3, 4, 5].map(() => runTransaction(b, async (tx) => {
    const s = await tx.get(doc(b, `${run}-tx`, 'counter'));
    tx.update(doc(b, `${run}-tx`, 'counter'), { n: s.get('n') + 1 });
  })));
  assert.equal((await getDoc(ref)).get('n'), 5);
});

test('writeBatch commits every write together', async () => {
  const name = `${run}-batch`;
  const batch = writeBatch(a);
  batch.set(doc(a, name, 'p'), { v: 1 });
  batch.set(doc(a, name, 'q'), { v: 2 });
  batch.delete(doc(a, name, 'missing'));
  await batch.commit();
  const snap = await getDocs(collection(b, name));
  assert.deepEqual(snap.docs.map((d) => [d.id, d.get('v')]), [['p', 1], ['q', 2]]);
});

test('serverTimestamp, increment and arrayUnion', async () => {
  const ref = doc(a, `${run}-transforms`, 't');
  const before = Date.now();
  await setDoc(ref, { at: serverTimestamp(), n: increment(2), tags: arrayUnion('a', 'b') });
  await updateDoc(ref, { n: increment(3), tags: arrayUnion('b', 'c') });
  const snap = await getDoc(doc(b, `${run}-transforms`, 't'));
  assert.ok(snap.get('at') instanceof Timestamp);
  assert.ok(snap.get('at').toMillis() >= before - 5000);
  assert.equal(snap.get('n'), 5);
  assert.deepEqual(snap.get('tags'), ['a', 'b', 'c']);
});

test('getCountFromServer', async () => {
  const name = `${run}-count`;
  const batch = writeBatch(a);
  for (let i = 0; i < 7; i++) batch.set(doc(a, name, `c${i}`), { big: i >= 3 });
  await batch.commit();
  assert.equal((await getCountFromServer(collection(b, name))).data().count, 7);
  assert.equal((await getCountFromServer(query(collection(b, name), where('big', '==', true)))).data().count, 4);
});

test('rules: a denied listen and a denied write fail with permission-denied; the streams go on', async () => {
  // web/firestore.rules: locked/* needs a signed-in user; these clients are anonymous.
  await assert.rejects(
    waitFor(doc(a, 'locked', `${run}-alice`), () => true),
    (e) => e.code === 'permission-denied');
  await assert.rejects(
    waitFor(query(collection(a, 'locked')), () => true),
    (e) => e.code === 'permission-denied');
  await assert.rejects(setDoc(doc(a, 'locked', `${run}-bob`), { x: 1 }), (e) => e.code === 'permission-denied');
  const ref = doc(a, `${run}-after-denial`, 'ok');
  await setDoc(ref, { fine: true });
  assert.equal((await getDoc(doc(b, `${run}-after-denial`, 'ok'))).get('fine'), true);
});

test('experimentalForceLongPolling: writes and a listener over CI=1 back channels', async () => {
  const lp = client('longpoll', { experimentalForceLongPolling: true });
  const name = `${run}-longpoll`;
  const seen = waitFor(query(collection(lp, name), orderBy('i')), (s) => s.size === 3);
  await setDoc(doc(b, name, 'one'), { i: 1 });
  await setDoc(doc(lp, name, 'two'), { i: 2 });
  await setDoc(doc(b, name, 'three'), { i: 3 });
  assert.deepEqual((await seen).docs.map((d) => d.id), ['one', 'two', 'three']);
  assert.equal((await getDoc(doc(lp, name, 'two'))).get('i'), 2);
  await terminate(lp);
});
