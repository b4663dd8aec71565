extension UIScript {
    /// The overview: one card per running listener, with its address, status and links.
    static let overview = #"""
// ---- overview ------------------------------------------------------------------------------
const LISTENERS = [
  { name: 'firestore', title: 'Firestore', view: '/firestore', what: 'Documents, collections and queries.' },
  { name: 'database', title: 'Realtime Database', view: '/database', what: 'The live JSON tree of each namespace.' },
  { name: 'hub', title: 'Emulator Hub', what: 'Where tools find the running emulators.' },
  { name: 'ui', title: 'Emulator UI', view: '/logs', viewText: 'Logs', what: 'This page, and the suite’s log.' },
];
views.overview = {
  enter(main) {
    const cards = h('div', { class: 'cards', id: 'overview-cards' });
    main.append(h('h1', { text: 'Emulators' }), cards);
    for (const l of LISTENERS) {
      const e = app.config[l.name];
      if (!e) continue;
      const dot = h('span', { class: 'dot', title: 'checking…' });
      const status = h('span', { class: 'muted', text: 'checking…' });
      cards.append(h('section', { class: 'card', 'data-emulator': l.name },
        h('div', { class: 'title' }, dot, l.title),
        h('div', { class: 'mono' }, hostPort(e.host, e.port)),
        h('div', { class: 'muted', text: l.what }),
        h('div', {}, status),
        l.view ? h('div', {}, h('a', { href: l.view, 'data-nav': true, text: 'Open ' + (l.viewText || l.title) + ' →' })) : null));
      probe(l.name).then((up) => {
        dot.className = 'dot ' + (up ? 'up' : 'down');
        status.textContent = up ? 'Running' : 'Not answering';
      });
    }
    if (!cards.children.length) main.append(h('p', { class: 'muted', text: 'No emulators are running.' }));
    if (origin('hub')) main.append(snapshotPanel());
  },
};

/// Export to a directory and import from one, through the hub (the same code and checks as
/// `emulators export` and `--import`). The hub refuses pages from other sites.
function snapshotPanel() {
  const path = h('input', { type: 'text', id: 'snapshot-path', 'aria-label': 'directory', placeholder: '/absolute/path/to/directory', size: 48 });
  const status = h('div', { id: 'snapshot-status', class: 'muted' });
  const send = async (what, body) => {
    const dir = path.value.trim();
    if (!dir.startsWith('/')) throw new RequestError('Give an absolute directory path (it is on the machine the suite runs on).');
    status.textContent = what === 'export' ? 'Exporting…' : 'Importing…';
    let r;
    try {
      r = await fetch(origin('hub') + '/_admin/' + what, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(Object.assign({ path: dir }, body)) });
    } catch (e) { status.textContent = ''; suiteUnreachable(); throw new RequestError('The emulator hub is not reachable. Retrying…'); }
    const reply = await r.json().catch(() => ({}));
    status.textContent = '';
    if (!r.ok) throw new RequestError(`${what === 'export' ? 'Export' : 'Import'} failed (${r.status}): ${reply.message || ''}`);
    status.textContent = (what === 'export' ? 'Exported to ' : 'Imported ') + dir + ' at ' + new Date().toLocaleTimeString();
    flashNotice(status.textContent);
  };
  return h('section', { class: 'card snapshots', id: 'snapshots' },
    h('div', { class: 'title', text: 'Snapshots' }),
    h('div', { class: 'muted', text: 'Export every emulator’s data to a directory, or load one (an emulator export, a production Firestore export or RTDB JSON files) over the running data.' }),
    h('form', { class: 'row', onsubmit: action(() => send('export', { initiatedBy: 'Emulator UI' })) }, path,
      h('button', { type: 'submit', class: 'primary', id: 'snapshot-export', text: 'Export' }),
      h('button', { type: 'button', id: 'snapshot-import', text: 'Import', onclick: action(async () => {
        if (!confirmAction('Load ' + path.value.trim() + ' over the running data? Documents and namespaces it holds replace the current ones.')) return;
        await send('import', {});
      }) })),
    status);
}

/// Whether a listener answers one of its own cheap requests.
async function probe(name) {
  const base = origin(name), project = encodeURIComponent(app.config.projectId);
  const requests = {
    firestore: [`${base}/v1/projects/${project}/databases/(default)/documents:listCollectionIds`, { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: 'Bearer owner' }, body: '{"pageSize":1}' }],
    database: [`${base}/.inspect/databases.json`, {}],
    hub: [`${base}/`, {}],
    ui: ['/api/config', {}],
  }[name];
  try { return (await fetch(requests[0], Object.assign({ cache: 'no-store' }, requests[1]))).ok; } catch (e) { return false; }
}
"""#
}
