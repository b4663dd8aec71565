/// The page's script, in parts joined in this order into `/assets/app.js`: shared helpers,
/// then one part per view, then the start-up. Plain browser JavaScript, no build step.
enum UIScript {
    static let core = #"""
'use strict';
// ---- helpers -------------------------------------------------------------------------------
const OWNER = { Authorization: 'Bearer owner' };
const app = { config: null, view: null, reachable: true, timers: [] };

function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else if (k === 'text') el.textContent = v;
    else if (k === 'class') el.className = v;
    else el.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children.flat()) if (c !== null && c !== undefined && c !== false) el.append(c instanceof Node ? c : String(c));
  return el;
}

function hostPort(host, port) { return host.includes(':') && !host.startsWith('[') ? `[${host}]:${port}` : `${host}:${port}`; }
function origin(name) {
  const e = app.config && app.config[name];
  if (!e) return null;
  const host = (e.host === '0.0.0.0' || e.host === '::') ? location.hostname : e.host;
  return `http://${hostPort(host, e.port)}`;
}

function notice(text, kind) {
  const el = document.getElementById('notice');
  if (!text) { el.hidden = true; el.textContent = ''; return; }
  el.hidden = false; el.className = kind || ''; el.textContent = text;
}
function flashNotice(text) { notice(text, 'ok'); setTimeout(() => { if (document.getElementById('notice').textContent === text) notice(''); }, 2500); }

class RequestError extends Error {}

/// Fetches JSON from an emulator; errors carry the emulator's own message.
async function call(url, options) {
  let response;
  try {
    response = await fetch(url, Object.assign({}, options, { headers: Object.assign({}, OWNER, (options || {}).headers) }));
  } catch (e) {
    suiteUnreachable();
    throw new RequestError('The emulator suite cannot be reached (' + url.split('/').slice(0, 3).join('/') + ').');
  }
  const text = await response.text();
  let body = null;
  if (text) { try { body = JSON.parse(text); } catch (e) { body = text; } }
  if (!response.ok) {
    let message = typeof body === 'string' ? body : JSON.stringify(body);
    if (body && typeof body === 'object') {
      if (Array.isArray(body) && body[0] && body[0].error) body = body[0];
      if (body.error && typeof body.error === 'object') message = body.error.message || message;
      else if (typeof body.error === 'string') message = body.error;
    }
    throw new RequestError(`${response.status}: ${message}`);
  }
  return body;
}

function report(error) {
  notice(error instanceof RequestError ? error.message : 'Unexpected problem: ' + (error && error.message || error), 'error');
}

/// Runs an async action from a button: errors go to the notice, never to the console.
function action(fn) {
  return (event) => {
    if (event) event.preventDefault();
    Promise.resolve().then(fn).catch(report);
  };
}

function confirmAction(text) { return window.confirm(text); }

function every(ms, fn) { const id = setInterval(() => { if (app.reachable && !document.hidden) fn(); }, ms); app.timers.push(id); return id; }
function stopTimers() { for (const id of app.timers) clearInterval(id); app.timers = []; }

// ---- suite reachability: a clear message while it is down, a redraw when it returns ----------
let probing = null;
function suiteUnreachable() {
  if (!app.reachable) return;
  app.reachable = false;
  notice('The emulator suite is not reachable. Retrying…', 'error');
  probing = setInterval(async () => {
    try {
      const r = await fetch('/api/config', { cache: 'no-store' });
      if (!r.ok) return;
      app.config = await r.json();
      clearInterval(probing); probing = null;
      app.reachable = true;
      notice('');
      route();
    } catch (e) { /* still down */ }
  }, 2000);
}

// ---- navigation --------------------------------------------------------------------------------
const views = {};
function navigate(path) { history.pushState(null, '', path); route(); }
document.addEventListener('click', (event) => {
  const a = event.target.closest && event.target.closest('a[data-nav]');
  if (!a || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
  event.preventDefault();
  navigate(a.getAttribute('href'));
});
window.addEventListener('popstate', () => route());

function route() {
  stopTimers();
  if (app.view && app.view.leave) app.view.leave();
  const path = location.pathname;
  const name = path.startsWith('/firestore') ? 'firestore' : path.startsWith('/database') ? 'database' : path.startsWith('/logs') ? 'logs' : path.startsWith('/requests') ? 'requests' : 'overview';
  for (const a of document.querySelectorAll('.bar nav a')) a.classList.toggle('active', a.dataset.view === name);
  const main = document.getElementById('view');
  main.replaceChildren();
  app.view = views[name];
  try { app.view.enter(main, path); } catch (e) { report(e); }
}

function decodeSegments(text) { return text.split('/').filter(Boolean).map((s) => { try { return decodeURIComponent(s); } catch (e) { return s; } }); }
function encodeSegments(segments) { return segments.map(encodeURIComponent).join('/'); }
"""#
}
