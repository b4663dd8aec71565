// What both browser pages share: named steps, checks, and the result run_chromium.py reads.

export const steps = [];

export function check(condition, what) {
  if (!condition) throw new Error(`check failed: ${what}`);
}

export async function step(name, body) {
  await body();
  steps.push(name);
}

// Runs `main` and publishes { ok, steps } (or the error, with `details()` added) as window.__result.
export function report(main, details = () => ({})) {
  main().then(
    () => { window.__result = { ok: true, steps }; },
    (e) => { window.__result = { ok: false, steps, error: String(e && e.stack || e), ...details(e) }; });
}
