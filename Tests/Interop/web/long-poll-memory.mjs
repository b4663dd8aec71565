// Memory per idle RTDB long-poll connection (not part of the test run):
//
//   EMULATORS_BIN=.build/release/emulators node Tests/Interop/web/long-poll-memory.mjs [--sessions 2000] [--runs 3]
//
// Starts the emulator, reads its VmRSS, then opens K long-poll connections on the raw protocol
// (as the JS SDK's BrowserPollConnection: start=t, then a poll carrying a `q` listen on a small
// location of its own), each left with one held poll (an open HTTP request), and reads VmRSS
// again. The same run measures K idle keep-alive HTTP connections (a finished REST read each) as
// the baseline that a held request costs by itself, and 10,000 abandoned connections (a start,
// never polled: what a page that went away leaves until the 30-second expiry).
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { arg, median, rssKiB, startSuite } from './bench-support.mjs';

const sessions = arg('sessions', 2000);
const runs = arg('runs', 3);
const bin = process.env.EMULATORS_BIN || '.build/release/emulators';
const work = mkdtempSync(path.join(tmpdir(), 'lp-memory-'));
const ns = 'demo-lp-memory';

const start = () => startSuite({ bin, work, emulator: 'database', project: 'demo-lp-memory' });

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** GET `target`; resolves with the body, or (held) with the request once the head arrived. */
function get(port, agent, target, { held = false } = {}) {
  return new Promise((resolve, reject) => {
    const request = http.get({ host: '127.0.0.1', port, path: target, agent }, (response) => {
      if (held) { resolve(request); return; }
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (c) => { body += c; });
      response.on('end', () => resolve(body));
    });
    request.on('error', reject);
  });
}

const base64 = (text) => Buffer.from(text).toString('base64url') + '.'.repeat((3 - (Buffer.byteLength(text) % 3)) % 3);

async function measure() {
  const { child, port } = await start();
  const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
  await sleep(500);
  const before = rssKiB(child.pid);
  const open = [];
  for (let k = 0; k < sessions; k++) {
    const startAnswer = await get(port, agent, `/.lp?start=t&ser=${k}&cb=1&v=5&ns=${ns}`);
    const [, id, pw] = /f\("start","([^"]+)","([^"]+)"\)/.exec(startAnswer);
    const listen = JSON.stringify({ t: 'd', d: { r: 1, a: 'q', b: { p: `/rooms/r${k}`, h: '' } } });
    await get(port, agent, `/.lp?id=${id}&pw=${pw}&ser=1&ns=${ns}&seg0=0&ts0=1&d0=${base64(listen)}`);
    open.push(await get(port, new http.Agent({ keepAlive: true }), `/.lp?id=${id}&pw=${pw}&ser=2&ns=${ns}`, { held: true }));
  }
  await sleep(1000);
  const withSessions = rssKiB(child.pid);
  const perSession = (withSessions - before) / sessions;
  for (const request of open) request.destroy();
  agent.destroy();
  child.kill('SIGKILL');
  return perSession;
}

async function measureKeepAlive() {
  const { child, port } = await start();
  await sleep(500);
  const before = rssKiB(child.pid);
  const agents = [];
  for (let k = 0; k < sessions; k++) {
    const agent = new http.Agent({ keepAlive: true });
    agents.push(agent);
    await get(port, agent, `/rooms/r${k}.json?ns=${ns}`);
  }
  await sleep(1000);
  const after = rssKiB(child.pid);
  for (const agent of agents) agent.destroy();
  child.kill('SIGKILL');
  return (after - before) / sessions;
}

async function measureAbandoned(count = 10000) {
  const { child, port } = await start();
  const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
  await sleep(500);
  const before = rssKiB(child.pid);
  for (let k = 0; k < count; k += 16) {
    await Promise.all(Array.from({ length: 16 }, (_, i) => get(port, agent, `/.lp?start=t&ser=${k + i}&cb=1&v=5&ns=${ns}`)));
  }
  await sleep(1000);
  const after = rssKiB(child.pid);
  agent.destroy();
  child.kill('SIGKILL');
  return (after - before) / count;
}

const lp = [];
const keepAlive = [];
const abandoned = [];
for (let r = 0; r < runs; r++) {
  lp.push(await measure());
  keepAlive.push(await measureKeepAlive());
  abandoned.push(await measureAbandoned());
}
rmSync(work, { recursive: true, force: true });
console.log(`idle long-poll connection (a listen, one held poll): ${median(lp).toFixed(2)} KiB each, median of ${runs} (${lp.map((x) => x.toFixed(2)).join(', ')}), ${sessions} connections`);
console.log(`abandoned long-poll connection (started, never polled): ${median(abandoned).toFixed(2)} KiB each (${abandoned.map((x) => x.toFixed(2)).join(', ')}), 10,000 connections`);
console.log(`baseline, idle keep-alive HTTP connection after one read: ${median(keepAlive).toFixed(2)} KiB each (${keepAlive.map((x) => x.toFixed(2)).join(', ')})`);
