// Where the JS SDK listener's time goes (not part of the test run): one SDK client writes DOCS
// documents in BATCH-document writeBatch commits while another SDK client (a worker thread)
// watches the collection with onSnapshot; prints the wall time, the listener thread's own CPU
// (/proc/thread-self/stat), the writer thread's CPU, the emulator's CPU and the snapshots the
// listener saw. ALT=1 alternates runs without a listener; PRELOAD=1 writes first and then times
// a listener's first snapshot of everything; PROXY=1 logs every Listen request and the size of
// its answer; PIN=1 puts the listener thread on CPU 1 and the writer and the emulator on CPU 0;
// TIMELINE=1 prints when each commit was acknowledged and when each snapshot reached the
// listener (ms after the first write, with its size and the listener thread's CPU then).
//
//   FIREBASE_JS_SDK_DIR=../shared/vendor/firebase-js-sdk BIN=.build/release/emulators RUNS=2 ALT=1 \
//     node --import ./Tests/Interop/web/register.mjs Tests/Interop/web/listener-cpu.mjs
import { mkdtempSync, rmSync, readFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import path from 'node:path';
import { startSuite } from './bench-support.mjs';
import { initializeApp } from 'https://www.gstatic.com/firebasejs/10.12.2/firebase-app.js';
import { initializeFirestore, connectFirestoreEmulator, doc, collection, writeBatch, onSnapshot, terminate, setLogLevel } from 'https://www.gstatic.com/firebasejs/10.12.2/firebase-firestore.js';
setLogLevel('silent');
const projectId = 'demo-web-bench';
const docs = Number(process.env.DOCS || 10000);
function client(port, name) {
  const app = initializeApp({ projectId, apiKey: 'fake' }, name);
  const db = initializeFirestore(app, {});
  connectFirestoreEmulator(db, '127.0.0.1', port);
  return db;
}
const threadCpu = () => { const f = readFileSync('/proc/thread-self/stat', 'utf8').split(') ')[1].split(' '); return (Number(f[11]) + Number(f[12])) * 10; };
const cpuMs = (pid) => { const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' '); return (Number(f[11]) + Number(f[12])) * 10; };
if (!isMainThread) {
  const { port, name } = workerData;
  const db = client(port, `watcher-${name}`);
  let first = true; let snaps = 0; const timeline = [];
  const tStart = threadCpu();
  parentPort.postMessage({ m: 'tid', tid: Number(readFileSync('/proc/thread-self/stat', 'utf8').split(' ')[0]) }); let t0 = threadCpu();
  let going = false;
  parentPort.on('message', (m) => { if (m === 'go') { t0 = threadCpu(); going = true; } });
  onSnapshot(collection(db, name), (s) => {
    snaps++;
    if (process.env.TIMELINE && going) timeline.push({ at: performance.timeOrigin + performance.now(), size: s.size, cpu: threadCpu() - t0 });
    if (first) { first = false; parentPort.postMessage({ m: 'ready' }); }
    if (s.size === docs) { parentPort.postMessage({ m: 'done', snaps, cpu: threadCpu() - t0, cpuAll: threadCpu() - tStart, timeline }); }
  });
} else {
  const bin = process.env.BIN;
  const work = mkdtempSync(path.join(tmpdir(), 'probe-'));
  const { child, port } = await startSuite({ bin, work, emulator: 'firestore', project: projectId });
  let listenPort = port;
  const log = [];
  if (process.env.PROXY) {
    const proxy = http.createServer((req, res) => {
      const entry = { url: req.url, method: req.method, chunks: [], t: performance.now() };
      log.push(entry);
      const up = http.request({ host: '127.0.0.1', port, method: req.method, path: req.url, headers: req.headers }, (r) => {
        res.writeHead(r.statusCode, r.headers);
        r.on('data', (c) => { entry.chunks.push(c.length); res.write(c); });
        r.on('end', () => { entry.end = performance.now(); res.end(); });
      });
      req.pipe(up);
    });
    await new Promise((r) => proxy.listen(0, '127.0.0.1', r));
    listenPort = proxy.address().port;
  }
  const acks = [];
  const writeAll = async (db, name) => {
    const commits = [];
    acks.length = 0;
    const B = Number(process.env.BATCH || 500); for (let s = 0; s < docs; s += B) { const b = writeBatch(db); for (let i = s; i < Math.min(docs, s + B); i++) b.set(doc(db, name, `d${i}`), { i, text: `document ${i}` }); commits.push(b.commit().then(() => acks.push(performance.now()))); }
    await Promise.all(commits);
  };
  { const w = client(port, 'warm'); await writeAll(w, 'warm'); await terminate(w); }
  const runs = Number(process.env.RUNS || 1);
  const modes = process.env.ALT ? ['plain', 'listen'] : [process.env.PLAIN ? 'plain' : 'listen'];
  for (let k = 0; k < runs * modes.length; k++) {
    const run = k; const mode = modes[k % modes.length];
    const name = `c${run}`;
    const writer = client(port, `w${run}`);
    let t0, written;
    if (process.env.PRELOAD) {
      await writeAll(writer, name);
      const worker = new Worker(new URL(import.meta.url), { workerData: { port: listenPort, name } });
      const t1 = performance.now();
      const d = await new Promise((res) => worker.on('message', (m) => { if (m.m === 'done') res(m); }));
      console.log(JSON.stringify({ run, preloadWatch: Math.round(performance.now() - t1), snaps: d.snaps, watcherCpuSinceStart: d.cpuAll, load: readFileSync('/proc/loadavg','utf8').split(' ')[0] }));
      await worker.terminate(); await terminate(writer); continue;
    }
    if (mode === 'plain') {
      if (process.env.PIN) {
        const { execFileSync } = await import('node:child_process');
        execFileSync('taskset', ['-p', '-c', '0', String(Number(readFileSync('/proc/thread-self/stat', 'utf8').split(' ')[0]))]);
        execFileSync('taskset', ['-a', '-p', '-c', '0', String(child.pid)]);
      }
      const c0 = cpuMs(child.pid); const m0 = threadCpu();
      t0 = performance.now(); await writeAll(writer, name); const ms = performance.now() - t0;
      console.log(JSON.stringify({ run, plain: Math.round(ms), serverCpu: cpuMs(child.pid) - c0, writerThreadCpu: threadCpu() - m0, load: readFileSync('/proc/loadavg','utf8').split(' ')[0] }));
      if (process.env.TIMELINE) console.log(`  acknowledged: ${acks.map((a) => Math.round(a - t0)).join(' ')}`);
      await terminate(writer); continue;
    }
    const worker = new Worker(new URL(import.meta.url), { workerData: { port: listenPort, name } });
    const msg = (what) => new Promise((res) => worker.on('message', (m) => { if (m.m === what) res(m); }));
    const ready = msg('ready'); const done = msg('done');
    if (process.env.PIN) {
      const { tid } = await msg('tid');
      const { execFileSync } = await import('node:child_process');
      const self = Number(readFileSync('/proc/thread-self/stat', 'utf8').split(' ')[0]);
      execFileSync('taskset', ['-p', '-c', '1', String(tid)]);
      execFileSync('taskset', ['-p', '-c', '0', String(self)]);
      execFileSync('taskset', ['-a', '-p', '-c', '0', String(child.pid)]);
    }
    await ready;
    worker.postMessage('go'); const c0 = cpuMs(child.pid); const m0 = threadCpu();
    t0 = performance.now();
    const [, d] = await Promise.all([writeAll(writer, name).then(() => { written = performance.now() - t0; }), done]);
    const ms = performance.now() - t0;
    console.log(JSON.stringify({ run, listened: Math.round(ms), written: Math.round(written), snaps: d.snaps, watcherCpu: d.cpu, writerThreadCpu: threadCpu() - m0, serverCpu: cpuMs(child.pid) - c0, load: readFileSync('/proc/loadavg','utf8').split(' ')[0] }));
    if (process.env.TIMELINE) {
      console.log(`  acknowledged: ${acks.map((a) => Math.round(a - t0)).join(' ')}`);
      const origin = performance.timeOrigin + t0;
      console.log(`  snapshots (ms: documents, listener CPU ms): ${d.timeline.map((e) => `${Math.round(e.at - origin)}: ${e.size}, ${e.cpu}`).join('; ')}`);
    }
    await worker.terminate();
    await terminate(writer);
  }
  if (process.env.PROXY) {
    for (const e of log) console.log(e.method, e.url.replace(/zx=[^&]*&?/, '').slice(0, 140), 'chunks', e.chunks.length, 'bytes', e.chunks.reduce((a, b) => a + b, 0), 'dur', e.end ? Math.round(e.end - e.t) : 'open');
  }
  child.kill('SIGINT');
  rmSync(work, { recursive: true, force: true });
  process.exit(0);
}
