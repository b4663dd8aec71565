// What the two measurement scripts (bench.mjs, long-poll-memory.mjs) share: their command-line
// numbers, free ports, a fresh suite started from a firebase.json of its own, and /proc readings.
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';

/** The number after `--name` on the command line, else `fallback`. */
export const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};

export const freePort = () => new Promise((resolve) => {
  const s = createServer();
  s.listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); });
});

/**
 * Starts `bin start --only <emulator>` in a new directory below `work`, on a free port, and
 * resolves once it printed "All emulators ready".
 */
export async function startSuite({ bin, work, emulator, project }) {
  const port = await freePort();
  const hub = await freePort();
  const dir = mkdtempSync(path.join(work, 'suite-'));
  writeFileSync(path.join(dir, 'firebase.json'), JSON.stringify({
    emulators: { [emulator]: { host: '127.0.0.1', port }, hub: { host: '127.0.0.1', port: hub }, ui: { enabled: false } },
  }));
  const child = spawn(path.resolve(bin), ['start', '--only', emulator, '--project', project],
    { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, TMPDIR: dir } });
  await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (c) => { out += c; if (out.includes('All emulators ready')) resolve(); });
    child.on('exit', (code) => reject(new Error(`emulator exited ${code}: ${out}`)));
  });
  return { child, port };
}

/** VmRSS of `pid` in KiB. */
export const rssKiB = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]);

export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
