extension UIScript {
    /// The Logs view and the start-up code.
    static let logs = #"""
// ---- Logs ----------------------------------------------------------------------------------
views.logs = {
  enter(main) {
    const s = this.state = { after: 0, paused: false };
    const level = h('select', { 'aria-label': 'level', id: 'logs-level' }, ['all', 'debug', 'info', 'warning', 'error'].map((l) => h('option', { value: l, text: l === 'all' ? 'all levels' : l + (l === 'debug' || l === 'all' ? '' : ' and up') })));
    const scope = h('select', { 'aria-label': 'emulator', id: 'logs-scope' }, h('option', { value: '', text: 'all emulators' }),
      ['emulators', 'firestore', 'database', 'hub', 'ui'].map((n) => h('option', { value: n, text: n })));
    const text = h('input', { type: 'search', placeholder: 'filter text', 'aria-label': 'filter text' });
    const pause = h('button', { text: 'Pause', id: 'logs-pause', onclick: () => { s.paused = !s.paused; pause.textContent = s.paused ? 'Resume' : 'Pause'; } });
    const body = h('tbody');
    const table = h('table', { class: 'logs', id: 'logs-table' }, body);
    const ranks = { debug: 0, info: 1, success: 1, warning: 2, error: 3 };
    const apply = () => {
      const min = level.value === 'all' ? -1 : ranks[level.value];
      const needle = text.value.toLowerCase();
      for (const row of body.rows) {
        const ok = ranks[row.dataset.level] >= min && (!scope.value || row.dataset.scope === scope.value) && (!needle || row.textContent.toLowerCase().includes(needle));
        row.hidden = !ok;
      }
    };
    for (const el of [level, scope, text]) el.addEventListener('input', apply);
    // Rules denials (and `debug()` output) are logged at debug level by both emulators.
    const denials = h('button', { text: 'Rules denials', id: 'logs-denials', onclick: () => { level.value = 'all'; text.value = 'PERMISSION_DENIED'; apply(); } });
    main.append(h('div', { class: 'toolbar' }, h('h1', { text: 'Logs', style: 'margin: 0' }), h('span', { class: 'grow' }), level, scope, text, denials, pause,
      h('button', { text: 'Clear', id: 'logs-clear', onclick: action(async () => {
        const r = await fetch('/api/logs', { method: 'DELETE' });
        if (!r.ok) throw new RequestError('The log could not be cleared (' + r.status + ').');
        body.replaceChildren();
      }) })), table);
    const poll = async () => {
      if (s.paused || s !== this.state) return;
      const r = await fetch('/api/logs?after=' + s.after, { cache: 'no-store' });
      if (!r.ok) return;
      const page = await r.json();
      if (page.skipped && s.after) body.append(h('tr', { 'data-level': 'warning', 'data-scope': '' }, h('td', { colspan: 4, class: 'muted', text: '… older lines dropped …' })));
      for (const line of page.lines) {
        body.append(h('tr', { 'data-level': line.level, 'data-scope': line.scope },
          h('td', { class: 'time', text: new Date(line.time).toLocaleTimeString() }),
          h('td', { class: 'level lv-' + line.level, text: line.level }),
          h('td', { class: 'muted', text: line.scope }),
          h('td', { text: line.text })));
        s.after = line.seq;
      }
      s.after = Math.max(s.after, page.last);
      while (body.rows.length > 5000) body.deleteRow(0);
      if (page.lines.length) apply();
    };
    poll().catch(() => suiteUnreachable());
    every(1000, () => poll().catch(() => suiteUnreachable()));
  },
};
"""#

    static let start = #"""
// ---- start -----------------------------------------------------------------------------------
async function startUI() {
  try {
    const r = await fetch('/api/config', { cache: 'no-store' });
    app.config = await r.json();
    document.getElementById('project').textContent = app.config.projectId;
    try { const saved = JSON.parse(sessionStorage.getItem('ui-token') || 'null'); if (saved && saved.token) setCredential(saved.token, saved.uid); } catch (e) { /* none */ }
    drawToken();
    route();
  } catch (e) {
    suiteUnreachable();
  }
}
startUI();
"""#
}
