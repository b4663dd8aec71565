/// The page's script, in parts joined in this order into `/assets/app.js`: shared helpers,
/// then one part per view, then the start-up. Plain browser JavaScript, no build step.
enum UIScript {
    static let core = #"""
'use strict';
// ---- helpers -------------------------------------------------------------------------------
// The credential of the page's requests: the owner, or (token mode) a user's mock ID token, so
// that rules decide as they would for that user.
const OWNER = { Authorization: 'Bearer owner' };
const app = { config: null, view: null, reachable: true, timers: [], token: null, tokenUid: null };
function credential() { return app.token || 'owner'; }

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
    // The same words as the reachability notice, so whichever is drawn last reads alike.
    throw new RequestError('The emulator suite is not reachable (' + url.split('/').slice(0, 3).join('/') + '). Retrying…');
  }
  const text = await response.text();
  let body = null;
  if (text) { try { body = JSON.parse(text); } catch (e) { body = text; } }
  if (!response.ok) {
    let message = typeof body === 'string' ? body : JSON.stringify(body);
    if (app.token && (response.status === 401 || response.status === 403)) {
      const rule = await latestDenial();
      if (rule) { const e = new RequestError(`${response.status}: denied by the rules for uid ${app.tokenUid || '?'}: ${rule}`); e.status = response.status; throw e; }
    }
    if (body && typeof body === 'object') {
      if (Array.isArray(body) && body[0] && body[0].error) body = body[0];
      if (body.error && typeof body.error === 'object') message = body.error.message || message;
      else if (typeof body.error === 'string') message = body.error;
    }
    const e = new RequestError(`${response.status}: ${message}`);
    e.status = response.status;
    throw e;
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

/// The message of the denial the Requests log holds for the page's user, just now: the rule that decided it.
async function latestDenial() {
  try {
    const r = await fetch('/api/requests?after=0&limit=50', { cache: 'no-store' });
    if (!r.ok) return null;
    const page = await r.json();
    // This user's, just now: another client's denial must not be shown as the page's.
    const last = page.requests.filter((x) => (x.outcome === 'deny' || x.outcome === 'error') && x.uid === app.tokenUid &&
      Math.abs(Date.now() - x.time) < 5000).pop();
    if (!last) return null;
    const d = await (await fetch('/api/requests/' + last.seq, { cache: 'no-store' })).json();
    return `${d.message || d.outcome} (${d.method} ${d.path})`;
  } catch (e) { return null; }
}

// ---- token mode ------------------------------------------------------------------------------
function base64url(text) { return btoa(unescape(encodeURIComponent(text))).replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_'); }
/// An unsigned ID token as the emulators accept it (as @firebase/rules-unit-testing makes them).
function mockToken(uid, claims) {
  const now = Math.floor(Date.now() / 1000), project = app.config.projectId;
  const payload = Object.assign({ iss: 'https://securetoken.google.com/' + project, aud: project, iat: now, exp: now + 3600, auth_time: now,
    sub: uid, user_id: uid, firebase: { sign_in_provider: 'custom', identities: {} } }, claims);
  return base64url(JSON.stringify({ alg: 'none', kid: 'fakekid', typ: 'JWT' })) + '.' + base64url(JSON.stringify(payload)) + '.';
}
function setCredential(token, uid) {
  app.token = token; app.tokenUid = token ? uid : null;
  OWNER.Authorization = 'Bearer ' + credential();
  try { if (token) sessionStorage.setItem('ui-token', JSON.stringify({ token, uid })); else sessionStorage.removeItem('ui-token'); } catch (e) { /* private mode */ }
  drawToken();
}
function drawToken() {
  const el = document.getElementById('token');
  if (!el) return;
  el.classList.toggle('user', !!app.token);
  el.replaceChildren(h('button', { id: 'token-button', title: 'Whose credential the page uses', onclick: () => tokenDialog(),
    text: app.token ? 'Acting as uid ' + (app.tokenUid || '?') : 'Acting as owner' }));
}
function tokenDialog() {
  const uid = h('input', { type: 'text', id: 'token-uid', placeholder: 'uid', 'aria-label': 'uid', value: app.tokenUid || '' });
  const claims = h('textarea', { id: 'token-claims', 'aria-label': 'claims', placeholder: '{"admin": true}  (other claims, JSON)' });
  const pasted = h('textarea', { id: 'token-pasted', 'aria-label': 'ID token', placeholder: 'or paste an ID token (header.payload.signature)' });
  const error = h('div', { class: 'error-text', id: 'token-error' });
  const dialog = h('dialog', { id: 'token-dialog' });
  const close = () => { dialog.close(); dialog.remove(); };
  const use = () => {
    error.textContent = '';
    if (pasted.value.trim()) {
      const token = pasted.value.trim(), parts = token.split('.');
      let payload = null;
      try { payload = JSON.parse(decodeURIComponent(escape(atob(parts[1].replace(/-/g, '+').replace(/_/g, '/'))))); } catch (e) { /* below */ }
      if (parts.length !== 3 || !payload || typeof payload !== 'object') { error.textContent = 'That is not an ID token: three base64url parts, the middle one a JSON object.'; return; }
      setCredential(token, payload.user_id || payload.sub || '');
    } else {
      if (!uid.value.trim()) { error.textContent = 'Give a uid, or paste a token.'; return; }
      let extra = {};
      if (claims.value.trim()) {
        try { extra = JSON.parse(claims.value); } catch (e) { error.textContent = 'The claims are not JSON: ' + e.message; return; }
        if (!extra || typeof extra !== 'object' || Array.isArray(extra)) { error.textContent = 'The claims must be a JSON object.'; return; }
      }
      setCredential(mockToken(uid.value.trim(), extra), uid.value.trim());
    }
    close(); route();
  };
  dialog.append(h('form', { method: 'dialog', class: 'editor', onsubmit: (e) => { e.preventDefault(); use(); } },
    h('strong', { text: 'Make the page’s requests as a user' }),
    h('div', { class: 'muted', text: 'Rules then decide as for that user; denials show here with the rule that decided.' }),
    uid, claims, pasted, error,
    h('div', { class: 'row' }, h('button', { class: 'primary', type: 'submit', id: 'token-use', text: 'Act as this user' }),
      h('button', { type: 'button', id: 'token-owner', text: 'Back to owner', onclick: () => { setCredential(null); close(); route(); } }),
      h('button', { type: 'button', text: 'Cancel', onclick: close }))));
  document.body.append(dialog);
  dialog.showModal();
}

function decodeSegments(text) { return text.split('/').filter(Boolean).map((s) => { try { return decodeURIComponent(s); } catch (e) { return s; } }); }
function encodeSegments(segments) { return segments.map(encodeURIComponent).join('/'); }
"""#
}
