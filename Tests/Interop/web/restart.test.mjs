// A reconnect after the suite restarts: the SDK's Listen and Write streams fail when the emulator
// stops, and resume (new WebChannel sessions, the listener's resume token) once it is back on the
// same port. Starts its own emulator with a --data-dir so the documents survive the restart.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { initializeApp, deleteApp } from 'https://www.gstatic.com/firebasejs/10.12.2/firebase-app.js';
import {
  initializeFirestore, connectFirestoreEmulator, doc, collection, setDoc, onSnapshot, terminate, setLogLevel,
} from 'https://www.gstatic.com/firebasejs/10.12.2/firebase-firestore.js';

setLogLevel(process.env.FIRESTORE_LOG_LEVEL || 'silent');
const bin = process.env.EMULATORS_BIN;
const projectId = 'demo-web-restart';
const work = mkdtempSync(path.join(process.env.TMPDIR || tmpdir(), 'web-restart-'));

function freePort() {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); });
  });
}

function start(port, hubPort) {
  writeFileSync(path.join(work, 'firebase.json'), JSON.stringify({
    emulators: { firestore: { host: '127.0.0.1', port }, hub: { host: '127.0.0.1', port: hubPort }, ui: { enabled: false } },
  }));
  const child = spawn(bin, ['start', '--only', 'firestore', '--project', projectId, '--data-dir', path.join(work, 'data')],
    { cwd: work, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`emulator not ready:\n${out}`)), 30000);
    const seen = (chunk) => {
      out += chunk;
      if (out.includes('All emulators ready')) { clearTimeout(timer); resolve(child); }
    };
    child.stdout.on('data', seen);
    child.stderr.on('data', seen);
    child.on('exit', (code) => { clearTimeout(timer); reject(new Error(`emulator exited ${code}:\n${out}`)); });
  });
}

function stop(child) {
  return new Promise((resolve) => {
    child.removeAllListeners('exit');
    child.on('exit', resolve);
    child.kill('SIGINT');
  });
}

let emulator;
after(async () => {
  if (emulator) await stop(emulator);
  rmSync(work, { recursive: true, force: true });
});

test('listeners and writes resume after the emulator restarts on the same port', { skip: !bin && 'EMULATORS_BIN is not set' }, async () => {
  const port = await freePort();
  const hubPort = await freePort();
  emulator = await start(port, hubPort);
  const app = initializeApp({ projectId, apiKey: 'fake-api-key' }, 'restart-watcher');
  const writerApp = initializeApp({ projectId, apiKey: 'fake-api-key' }, 'restart-writer');
  const db = initializeFirestore(app, {});
  const writer = initializeFirestore(writerApp, {});
  connectFirestoreEmulator(db, '127.0.0.1', port);
  connectFirestoreEmulator(writer, '127.0.0.1', port);
  const seen = new Set();
  let listenerError = null;
  const unsubscribe = onSnapshot(collection(db, 'restart'), { includeMetadataChanges: true }, (snap) => {
    for (const d of snap.docs) if (!d.metadata.hasPendingWrites) seen.add(d.id);
  }, (e) => { listenerError = e; });
  const until = async (predicate, what) => {
    for (let i = 0; i < 600 && !predicate(); i++) await new Promise((r) => setTimeout(r, 50));
    assert.ok(predicate(), `timed out waiting for ${what}; saw ${[...seen]}; error ${listenerError}`);
  };
  await setDoc(doc(writer, 'restart', 'before'), { n: 1 });
  await until(() => seen.has('before'), 'the first document');

  await stop(emulator);
  emulator = await start(port, hubPort);

  await setDoc(doc(writer, 'restart', 'after'), { n: 2 });
  await until(() => seen.has('after'), 'a document written after the restart');
  await setDoc(doc(db, 'restart', 'own'), { n: 3 });
  await until(() => seen.has('own'), "the watcher's own write after the restart");
  assert.equal(listenerError, null);
  unsubscribe();
  await terminate(db);
  await terminate(writer);
  await deleteApp(app);
  await deleteApp(writerApp);
});
