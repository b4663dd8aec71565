extension UIScript {
    /// The Requests view: every rules decision of both emulators, live (polled from
    /// `/api/requests`), filtered in the page, with a detail pane showing the rules file with the
    /// lines that ran marked, the request and resource the rules saw, and `debug()` output.
    static let requests = #"""
// ---- Requests ------------------------------------------------------------------------------
const REQUESTS_KEPT = 2000;
views.requests = {
  enter(main) {
    const s = this.state = { after: 0, paused: false, rows: [], selected: null };
    const outcome = h('select', { 'aria-label': 'outcome', id: 'requests-outcome' },
      ['', 'allow', 'deny', 'error', 'owner'].map((o) => h('option', { value: o, text: o || 'all outcomes' })));
    const method = h('select', { 'aria-label': 'method', id: 'requests-method' },
      ['', 'get', 'list', 'create', 'update', 'delete', 'write', 'read'].map((m) => h('option', { value: m, text: m || 'all methods' })));
    const emulator = h('select', { 'aria-label': 'emulator', id: 'requests-emulator' },
      ['', 'firestore', 'database'].map((m) => h('option', { value: m, text: m || 'both emulators' })));
    const path = h('input', { type: 'search', placeholder: 'path contains', 'aria-label': 'path', id: 'requests-path' });
    const uid = h('input', { type: 'search', placeholder: 'uid', 'aria-label': 'uid', id: 'requests-uid', size: 10 });
    const pause = h('button', { text: 'Pause', id: 'requests-pause', onclick: () => { s.paused = !s.paused; pause.textContent = s.paused ? 'Resume' : 'Pause'; } });
    const clear = h('button', { text: 'Clear', id: 'requests-clear', onclick: action(async () => {
      const r = await fetch('/api/requests', { method: 'DELETE' });
      if (!r.ok) throw new RequestError('The requests could not be cleared (' + r.status + ').');
      s.rows = []; body.replaceChildren(); detail.replaceChildren(h('p', { class: 'muted', text: 'Select a request.' }));
    }) });
    const count = h('span', { class: 'muted', id: 'requests-count' });
    const body = h('tbody');
    const table = h('table', { class: 'logs requests', id: 'requests-table' },
      h('thead', {}, h('tr', {}, ['time', 'emulator', 'method', 'path', 'uid', 'outcome'].map((t) => h('th', { text: t })))), body);
    const detail = h('section', { class: 'request-detail', id: 'requests-detail' }, h('p', { class: 'muted', text: 'Select a request.' }));
    const links = h('span', { class: 'coverage-links' });
    const fs = origin('firestore'), db = origin('database');
    const project = encodeURIComponent(app.config.projectId);
    if (fs) links.append(h('a', { href: `${fs}/emulator/v1/projects/${project}:ruleCoverage.html`, target: '_blank', id: 'coverage-firestore', text: 'Firestore coverage' }), ' ');
    if (db) links.append(h('a', { href: `${db}/.inspect/coverage?ns=${encodeURIComponent(app.config.projectId + '-default-rtdb')}`, target: '_blank', id: 'coverage-database', text: 'Database coverage' }));
    main.append(
      h('div', { class: 'toolbar' }, h('h1', { text: 'Requests', style: 'margin: 0' }), count, h('span', { class: 'grow' }), links),
      h('div', { class: 'toolbar' }, outcome, method, emulator, path, uid, pause, clear),
      h('div', { class: 'split' }, h('div', { class: 'scroll' }, table), detail));
    const matches = (r) => (!outcome.value || r.outcome === outcome.value) && (!method.value || r.method === method.value) &&
      (!emulator.value || r.emulator === emulator.value) && (!path.value || r.path.includes(path.value)) &&
      (!uid.value || (r.uid || '').includes(uid.value));
    const apply = () => {
      let shown = 0;
      for (const row of body.rows) { const ok = matches(row.record); row.hidden = !ok; if (ok) shown++; }
      count.textContent = `${shown} of ${body.rows.length} kept`;
    };
    for (const el of [outcome, method, emulator, path, uid]) el.addEventListener('input', apply);
    const select = async (row) => {
      for (const r of body.querySelectorAll('tr.selected')) r.classList.remove('selected');
      row.classList.add('selected');
      s.selected = row.record.seq;
      const r = await fetch('/api/requests/' + row.record.seq, { cache: 'no-store' });
      if (s.selected !== row.record.seq) return;
      if (!r.ok) { detail.replaceChildren(h('p', { class: 'error-text', text: 'This request is no longer kept (only the most recent are).' })); return; }
      showDetail(detail, await r.json());
    };
    const poll = async () => {
      if (s.paused || s !== this.state) return;
      const r = await fetch('/api/requests?after=' + s.after, { cache: 'no-store' });
      if (!r.ok) return;
      const page = await r.json();
      if (s !== this.state) return;
      if (!page.recording) { count.textContent = 'Rules decisions are not recorded by this suite.'; return; }
      if (page.skipped && s.after) body.append(h('tr', { class: 'gap' }, h('td', { colspan: 6, class: 'muted', text: '… older requests dropped …' })));
      const fragment = document.createDocumentFragment();
      for (const rec of page.requests) {
        const row = h('tr', { class: 'req o-' + rec.outcome, 'data-seq': rec.seq, 'data-outcome': rec.outcome, tabindex: 0 },
          h('td', { class: 'time', text: new Date(rec.time).toLocaleTimeString() }),
          h('td', { class: 'muted', text: rec.emulator }),
          h('td', { text: rec.method }),
          h('td', { class: 'path', text: rec.path }),
          h('td', { class: 'muted', text: rec.uid || '—' }),
          h('td', {}, h('span', { class: 'badge o-' + rec.outcome, text: rec.outcome })));
        row.record = rec;
        row.hidden = !matches(rec);
        row.addEventListener('click', () => select(row).catch(report));
        fragment.append(row);
        s.after = rec.seq;
      }
      body.append(fragment);
      s.after = Math.max(s.after, page.last);
      while (body.rows.length > REQUESTS_KEPT) body.deleteRow(0);
      if (page.requests.length || page.skipped) apply();
    };
    poll().catch(() => suiteUnreachable());
    every(500, () => poll().catch(() => suiteUnreachable()));
  },
};

/// The detail pane: the decision, the rules file with the lines that ran marked, what the rules saw.
function showDetail(detail, d) {
  const marks = {};
  for (const l of d.lines) {
    const prev = marks[l.line];
    marks[l.line] = !prev ? l.outcome : prev === l.outcome ? prev : 'mixed';
  }
  const rules = h('pre', { class: 'rules-source', id: 'requests-rules' });
  if (d.rules) {
    d.rules.text.split('\n').forEach((text, i) => {
      const n = i + 1;
      rules.append(h('div', { class: 'src' + (marks[n] ? ' m-' + marks[n] : ''), 'data-line': n, title: marks[n] || '' },
        h('span', { class: 'ln', text: String(n) }), text || ' '));
    });
  }
  const json = (v) => h('pre', { class: 'json' }, v === null || v === undefined ? 'null' : JSON.stringify(v, null, 2));
  detail.replaceChildren(
    h('h2', {}, h('span', { class: 'badge o-' + d.outcome, text: d.outcome }), ' ', d.method, ' ', h('span', { class: 'mono', text: d.path })),
    h('div', { class: 'muted' }, new Date(d.time).toLocaleString(), ' · ', d.emulator, ' · uid ', d.uid || '—'),
    d.message ? h('p', { class: 'error-text', id: 'requests-message', text: d.message }) : null,
    d.debug.length ? h('div', {}, h('h3', { text: 'debug()' }), h('pre', { class: 'json', id: 'requests-debug', text: d.debug.join('\n') })) : null,
    h('h3', { text: d.rules ? d.rules.fileName : 'Rules' }),
    d.rules ? rules : h('p', { class: 'muted', text: d.outcome === 'owner' ? 'The owner is not held to rules.' : 'No rules file.' }),
    h('h3', { text: 'request' }), json(d.request),
    // The Realtime Database's rules see `data` (before a write) and `newData`; Firestore's `resource`.
    d.emulator === 'database'
      ? h('div', { id: 'requests-data' }, h('h3', { text: 'data' }), json(d.resource && d.resource.data),
          d.resource && d.resource.truncated ? h('p', { class: 'muted', text: d.resource.truncated }) : null,
          d.request && d.request.newData ? [h('h3', { text: 'newData' }), json(d.request.newData)] : null,
          d.resource ? null : h('p', { class: 'muted', text: 'Kept only while a page watches the requests.' }))
      : h('div', { id: 'requests-resource' }, h('h3', { text: 'resource' }), json(d.resource)));
  const first = rules.querySelector('.src[class*=" m-"]');
  if (first) first.scrollIntoView({ block: 'nearest' });
}
"""#
}
