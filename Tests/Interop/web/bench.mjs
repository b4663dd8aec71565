// WebChannel benchmark with the real SDK (not part of the test run):
//
//   FIREBASE_JS_SDK_DIR=../shared/vendor/firebase-js-sdk EMULATORS_BIN=.build/release/emulators \
//     node --import ./Tests/Interop/web/register.mjs Tests/Interop/web/bench.mjs [--runs 3] [--docs 10000] [--sessions 500]
//
// 1. One JS client writes N documents in 500-document writeBatch commits (all batches handed to
//    the SDK at once; it pipelines them over its Write stream), with and without a second JS
//    client's onSnapshot on the collection. With the listener the time runs until the listener's
//    snapshot holds every document; without it, until every commit is acknowledged.
//    The watcher runs in a worker thread (its own event loop), as it would in its own page.
// 2. Memory per idle WebChannel session: the emulator's VmRSS before and after K raw sessions,
//    each a Listen session with one document target and an open streaming back channel.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import path from 'node:path';
import { arg, median, rssKiB, startSuite } from './bench-support.mjs';
import { initializeApp } from 'https://www.gstatic.com/firebasejs/10.12.2/firebase-app.js';
import {
  initializeFirestore, connectFirestoreEmulator, doc, collection, writeBatch, onSnapshot, terminate, setLogLevel,
} from 'https://www.gstatic.com/firebasejs/10.12.2/firebase-firestore.js';

setLogLevel('silent');
const runs = arg('runs', 3);
const docs = arg('docs', 10000);
const sessions = arg('sessions', 500);
const bin = process.env.EMULATORS_BIN || '.build/release/emulators';
const projectId = 'demo-web-bench';
const work = mkdtempSync(path.join(tmpdir(), 'web-bench-'));

const start = () => startSuite({ bin, work, emulator: 'firestore', project: projectId });

/** The emulator's CPU time (user + system) in ms. */
const cpuMs = (pid) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
};

function client(port, name) {
  const app = initializeApp({ projectId, apiKey: 'fake' }, name);
  const db = initializeFirestore(app, {});
  connectFirestoreEmulator(db, '127.0.0.1', port);
  return db;
}

async function writeAll(db, name) {
  const commits = [];
  for (let start = 0; start < docs; start += 500) {
    const batch = writeBatch(db);
    for (let i = start; i < Math.min(docs, start + 500); i++) batch.set(doc(db, name, `d${i}`), { i, text: `document ${i}` });
    commits.push(batch.commit());
  }
  await Promise.all(commits);
}

/** A watcher in a worker thread: posts 'ready' after the first snapshot, 'done' at `docs` documents. */
function watcher(port, name) {
  const worker = new Worker(new URL(import.meta.url), { workerData: { port, name, docs } });
  const message = (what) => new Promise((resolve, reject) => {
    const onMessage = (m) => { if (m === what) { worker.off('message', onMessage); resolve(); } };
    worker.on('message', onMessage);
    worker.once('error', reject);
  });
  return { ready: message('ready'), done: message('done'), worker };
}

const writerTimes = [];

/** A Listen session on the raw protocol (no SDK): resolves when `expected` documents were delivered. */
async function rawWatcher(port, name) {
  const channel = '/google.firestore.v1.Firestore/Listen/channel';
  const root = `projects/${projectId}/databases/(default)`;
  const target = { database: root, addTarget: { query: { parent: `${root}/documents`,
    structuredQuery: { from: [{ collectionId: name }] } }, targetId: 2 } };
  const reply = await request(port, 'POST', `${channel}?VER=8&RID=1&CVER=22&t=1`,
    `count=1&ofs=0&req0___data__=${encodeURIComponent(JSON.stringify(target))}`);
  const sid = /"c","([^"]+)"/.exec(reply)[1];
  const seen = new Set();
  let req;
  let ready;
  let finished = false;
  let lastId = 0;
  const readyP = new Promise((r) => { ready = r; });
  const done = new Promise((resolve) => {
    // The server ends a back channel after a bounded number of bytes; open the next one after
    // the last message id seen, as the SDK does.
    const open = () => {
      req = http.get({ host: '127.0.0.1', port, agent: false,
        path: `${channel}?VER=8&RID=rpc&SID=${sid}&AID=${lastId}&CI=0&TYPE=xmlhttp&t=1` }, (res) => {
        res.setEncoding('utf8');
        let tail = '';
        res.on('data', (chunk) => {
          ready();
          // A name may straddle two chunks: scan each chunk with the end of the previous one.
          const text = tail + chunk;
          tail = text.slice(-400);
          for (const m of text.matchAll(/"name":"[^"]*\/documents\/[^"/]+\/(d\d+)"/g)) seen.add(m[1]);
          for (const m of text.matchAll(/\[(\d+),\[/g)) lastId = Math.max(lastId, Number(m[1]));
          if (seen.size === docs) { finished = true; resolve(); }
        });
        res.on('end', () => { if (!finished) open(); });
      });
    };
    open();
  });
  await readyP;
  return { done, close: () => { finished = true; req.destroy(); } };
}

async function bulk(port, run, withListener) {
  const writer = client(port, `w-${run}-${withListener}`);
  const name = `bulk-${run}-${withListener === 'raw' ? 'r' : withListener ? 'l' : 'n'}`;
  let heard = Promise.resolve();
  let watching = null;
  if (withListener === 'raw') {
    const raw = await rawWatcher(port, name);
    heard = raw.done;
    watching = { worker: { terminate: async () => raw.close() } };
  } else if (withListener) {
    watching = watcher(port, name);
    await watching.ready;
    heard = watching.done;
  }
  const t0 = performance.now();
  let written = 0;
  await Promise.all([writeAll(writer, name).then(() => { written = performance.now() - t0; }), heard]);
  const ms = performance.now() - t0;
  if (withListener === true) writerTimes.push(written);
  if (watching) await watching.worker.terminate();
  await terminate(writer);
  return ms;
}

function request(port, method, target, body) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path: target, agent: false,
      headers: body ? { 'Content-Type': 'application/x-www-form-urlencoded' } : {} }, (res) => {
      let text = '';
      res.on('data', (c) => { text += c; });
      res.on('end', () => resolve(text));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function idleSessions(port, pid) {
  const channel = '/google.firestore.v1.Firestore/Listen/channel';
  const open = [];
  const before = rssKiB(pid);
  for (let k = 0; k < sessions; k++) {
    const target = { database: `projects/${projectId}/databases/(default)`,
      addTarget: { documents: { documents: [`projects/${projectId}/databases/(default)/documents/idle/d${k}`] }, targetId: 2 } };
    const reply = await request(port, 'POST', `${channel}?VER=8&RID=1&CVER=22&t=1`,
      `count=1&ofs=0&req0___data__=${encodeURIComponent(JSON.stringify(target))}`);
    const sid = /"c","([^"]+)"/.exec(reply)[1];
    await new Promise((resolve) => {
      const req = http.get({ host: '127.0.0.1', port, agent: false,
        path: `${channel}?VER=8&RID=rpc&SID=${sid}&AID=0&CI=0&TYPE=xmlhttp&t=1` }, (res) => {
        res.once('data', resolve);  // the first chunk: the target's ADD … CURRENT and a noop
      });
      open.push(req);
    });
  }
  await new Promise((r) => setTimeout(r, 500));
  const after = rssKiB(pid);
  for (const req of open) req.destroy();
  return (after - before) / sessions;
}

if (!isMainThread) {
  const { port, name, docs: expected } = workerData;
  const db = client(port, `watcher-${name}`);
  let first = true;
  onSnapshot(collection(db, name), (s) => {
    if (first) { first = false; parentPort.postMessage('ready'); }
    if (s.size === expected) parentPort.postMessage('done');
  });
} else {
const { child, port } = await start();
try {
  const plain = [];
  const listened = [];
  const cpu = { plain: [], listened: [] };
  const rawListened = [];
  await bulk(port, 'warm', false);
  for (let run = 0; run < runs; run++) {
    let c = cpuMs(child.pid);
    plain.push(await bulk(port, run, false));
    cpu.plain.push(cpuMs(child.pid) - c);
    c = cpuMs(child.pid);
    listened.push(await bulk(port, run, true));
    cpu.listened.push(cpuMs(child.pid) - c);
    rawListened.push(await bulk(port, run, 'raw'));
  }
  // A fresh emulator for the memory figure: the bulk runs leave freed memory the allocator reuses.
  const fresh = await start();
  let perSession;
  try {
    perSession = await idleSessions(fresh.port, fresh.child.pid);
  } finally {
    fresh.child.kill('SIGINT');
  }
  const p = median(plain);
  const l = median(listened);
  console.log(`docs=${docs} runs=${runs} (medians)`);
  console.log(`without listener: ${p.toFixed(0)} ms (${(docs / p * 1000).toFixed(0)} docs/s)  runs: ${plain.map((x) => x.toFixed(0)).join(', ')}`);
  console.log(`with listener:    ${l.toFixed(0)} ms (${(docs / l * 1000).toFixed(0)} docs/s)  runs: ${listened.map((x) => x.toFixed(0)).join(', ')}`);
  console.log(`ratio: ${(l / p).toFixed(2)}x`);
  console.log(`with a raw-protocol listener (no SDK on the listening side): ${median(rawListened).toFixed(0)} ms  runs: ${rawListened.map((x) => x.toFixed(0)).join(', ')}`);
  console.log(`with listener, the writer's own commits done after: ${median(writerTimes).toFixed(0)} ms (median)`);
  console.log(`emulator CPU per run: without listener ${median(cpu.plain)} ms, with listener ${median(cpu.listened)} ms`);
  console.log(`idle Listen session with an open back channel: ${perSession.toFixed(1)} KiB each (${sessions} sessions)`);
} finally {
  child.kill('SIGINT');
  rmSync(work, { recursive: true, force: true });
}
process.exit(0);
}
