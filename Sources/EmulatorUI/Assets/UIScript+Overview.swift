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
  },
};

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
