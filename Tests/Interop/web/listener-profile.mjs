// Where the JS SDK listener's CPU goes (not part of the test run): reads the V8 CPU profiles
// `node --cpu-prof` wrote for listener-cpu.mjs, picks the listener's worker thread (the profile
// that raised watch snapshots) and sums its samples after its first snapshot by the SDK stage they ran in. The stage
// names are the functions of the Firebase JS SDK 10.12.2 ESM bundle (minified names with their
// column in that bundle where the name is not kept); another SDK version needs new columns.
//
//   FIREBASE_JS_SDK_DIR=../shared/vendor/firebase-js-sdk BIN=.build/release/emulators RUNS=2 \
//     node --cpu-prof --cpu-prof-dir=/tmp/prof --import ./Tests/Interop/web/register.mjs Tests/Interop/web/listener-cpu.mjs
//   node Tests/Interop/web/listener-profile.mjs /tmp/prof [documents per run, 10000]
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const dir = process.argv[2];
const documents = Number(process.argv[3] || 10000);

// In order: a sample counts for the first stage with a frame on its stack (outermost first).
const stages = [
  ['decoding each message (fromWatchChange: names, timestamps, values)', ['__PRIVATE_fromWatchChange']],
  ['the watch aggregator, per document (handleDocumentChange)', ['Ke:148527']],
  ['applyRemoteEvent: remote document cache (populateDocumentChangeBuffer, applyChanges, getLocalViewOfDocuments)',
    ['__PRIVATE_populateDocumentChangeBuffer', 'applyChanges:235705', 'getLocalViewOfDocuments']],
  ['applyRemoteEvent: target-document references (addMatchingKeys)', ['addMatchingKeys']],
  ['applyRemoteEvent: the rest', ['__PRIVATE_localStoreApplyRemoteEventToLocalCache']],
  ['the query view (applyDocChanges)', ['__PRIVATE_applyDocChanges']],
  ['localStoreNotifyLocalViewChanges', ['__PRIVATE_localStoreNotifyLocalViewChanges']],
  ['raising and emitting snapshots: the rest', ['__PRIVATE_raiseWatchSnapshot', '__PRIVATE_syncEngineEmitNewSnapsAndNotifyLocalStore', 'rt:151194']],
  ['WebChannel: fetch, stream reads, framing, JSON.parse', ['e.Pa:45059', 'Da:22116', 'e.Fa:56536', 'fetch', 'httpNetworkFetch']],
  ['garbage collector', ['(garbage collector)']],
  ['idle', ['(idle)']],
];

function summarize(profile) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children || []) parent.set(c, n.id);
  const matches = (n, pattern) => {
    const [name, column] = pattern.split(':');
    return n.callFrame.functionName === name && (column === undefined || n.callFrame.columnNumber === Number(column));
  };
  const stacks = profile.samples.map((sample) => {
    const stack = [];
    for (let id = sample; id !== undefined; id = parent.get(id)) stack.push(byId.get(id));
    return stack.reverse();
  });
  // Start-up (loading the SDK, the first empty snapshot) ends at the first snapshot raised.
  const first = stacks.findIndex((stack) => stack.some((n) => n.callFrame.functionName === '__PRIVATE_raiseWatchSnapshot'));
  const sums = new Map();
  let total = 0;
  for (let i = Math.max(0, first); i < stacks.length; i++) {
    const us = profile.timeDeltas[i] || 0;
    total += us;
    const stack = stacks[i];
    let label = 'other (the async queue, timers, ...)';
    find: for (const [name, patterns] of stages) {
      for (const n of stack) if (patterns.some((p) => matches(n, p))) { label = name; break find; }
    }
    sums.set(label, (sums.get(label) || 0) + us);
  }
  return { total, sums };
}

for (const file of readdirSync(dir).filter((f) => f.endsWith('.cpuprofile')).sort()) {
  const profile = JSON.parse(readFileSync(path.join(dir, file), 'utf8'));
  if (!profile.nodes.some((n) => n.callFrame.functionName === '__PRIVATE_raiseWatchSnapshot')) continue;
  if (profile.nodes.some((n) => n.callFrame.functionName === '__PRIVATE_syncEngineWrite')) continue;  // the writer
  const { total, sums } = summarize(profile);
  const busy = total - (sums.get('idle') || 0);
  console.log(`${file}: ${(total / 1000).toFixed(0)} ms profiled after the first snapshot, ${(busy / 1000).toFixed(0)} ms busy`);
  for (const [label, us] of [...sums].sort((a, b) => b[1] - a[1])) {
    if (label === 'idle') continue;
    console.log(`  ${(us / 1000).toFixed(0).padStart(5)} ms ${(100 * us / busy).toFixed(0).padStart(3)} % ${(us / documents).toFixed(1).padStart(6)} µs/doc  ${label}`);
  }
}
