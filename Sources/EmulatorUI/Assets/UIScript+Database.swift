extension UIScript {
    /// The Realtime Database view: a tree that loads one level at a time (REST `shallow=true`),
    /// pages of children, live refresh from the emulator's SSE stream, editing, import, export
    /// and a query by child, key or value.
    static let database = #"""
// ---- Realtime Database -----------------------------------------------------------------------
const CHILD_PAGE = 100;
function checkKey(key) {
  if (!key) throw new RequestError('A key cannot be empty.');
  if (/[.#$\[\]\/\x00-\x1f\x7f]/.test(key)) throw new RequestError(`Key "${key}" cannot contain . # $ [ ] / or control characters.`);
  if (new TextEncoder().encode(key).length > 768) throw new RequestError('A key must be at most 768 bytes.');
}
function depthOf(v, d) {
  d = d || 0;
  if (d > 32) return d;
  if (v === null || typeof v !== 'object') return d;
  let max = d;
  for (const x of Object.values(v)) max = Math.max(max, depthOf(x, d + 1));
  return max;
}
function parseJSONValue(text, what) {
  let v;
  try { v = JSON.parse(text); } catch (e) { throw new RequestError(`${what} is not valid JSON: ${e.message}`); }
  if (depthOf(v) > 32) throw new RequestError(`${what} is nested more than 32 levels deep.`);
  return v;
}
function keyOrder(a, b) {
  const ia = /^-?\d{1,10}$/.test(a), ib = /^-?\d{1,10}$/.test(b);
  if (ia && ib) return Number(a) - Number(b) || (a < b ? -1 : 1);
  if (ia) return -1; if (ib) return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

views.database = {
  enter(main, path) {
    const parts = decodeSegments(path).slice(1);
    const defaultNs = `${app.config.projectId}-default-rtdb`;
    const s = this.state = { ns: parts[0] || defaultNs, path: parts[1] === 'data' ? parts.slice(2) : [], expanded: new Set(), editing: 0 };
    if (!app.config.database) { main.append(h('p', { class: 'muted', text: 'The Realtime Database emulator is not running.' })); return; }
    s.origin = origin('database');
    const nsSelect = h('select', { 'aria-label': 'namespace', id: 'db-namespace', onchange: () => navigate(this.link(nsSelect.value, [])) }, h('option', { value: s.ns, text: s.ns, selected: true }));
    call(`${s.origin}/.inspect/databases.json?ns=${encodeURIComponent(s.ns)}`).then((list) => {
      const names = new Set((list || []).map((x) => x.name).concat([s.ns, defaultNs]));
      nsSelect.replaceChildren(...Array.from(names).sort().map((n) => h('option', { value: n, text: n, selected: n === s.ns })));
    }).catch(() => {});
    const crumbs = h('div', { class: 'crumbs grow' }, h('a', { href: this.link(s.ns, []), 'data-nav': true, text: '/' }));
    s.path.forEach((seg, i) => crumbs.append(h('span', { class: 'muted', text: i ? '/' : '' }), h('a', { href: this.link(s.ns, s.path.slice(0, i + 1)), 'data-nav': true, text: seg })));
    const live = h('input', { type: 'checkbox', id: 'db-live', checked: true, onchange: () => live.checked ? this.listen() : this.unlisten() });
    main.append(h('div', { class: 'toolbar' }, h('label', { class: 'muted', text: 'Namespace ' }), nsSelect, crumbs,
      h('label', {}, live, ' live'),
      h('button', { text: 'Import JSON', id: 'db-import', onclick: () => this.importForm(main) }),
      h('button', { text: 'Export', id: 'db-export', onclick: action(() => this.exportSubtree(s.path)) })));
    main.append(this.queryBar());
    s.tree = h('div', { class: 'tree', id: 'db-tree' });
    main.append(s.tree);
    this.drawRoot().catch(report);
    this.listen();
  },
  leave() { this.unlisten(); },
  link(ns, path) { return '/database/' + encodeURIComponent(ns) + '/data' + (path.length ? '/' + encodeSegments(path) : ''); },
  url(path, query) {
    const s = this.state;
    return `${s.origin}/${encodeSegments(path)}.json?ns=${encodeURIComponent(s.ns)}` + (query ? '&' + query : '');
  },

  listen() {
    const s = this.state;
    this.unlisten();
    // EventSource cannot send headers: the owner credential goes in the query, as REST allows.
    const source = new EventSource(this.url(s.path, 'access_token=' + encodeURIComponent(credential())));
    let first = true;
    const changed = (event) => {
      if (first && event.type === 'put') { first = false; return; }
      let data; try { data = JSON.parse(event.data); } catch (e) { return; }
      this.refreshAround(s.path.concat((data.path || '/').split('/').filter(Boolean)));
    };
    source.addEventListener('put', changed);
    source.addEventListener('patch', changed);
    source.addEventListener('cancel', () => { this.unlisten(); notice('Live updates stopped: read access was revoked.', 'error'); });
    source.onerror = () => { if (source.readyState === EventSource.CLOSED) this.unlisten(); };
    s.source = source;
  },
  unlisten() { const s = this.state; if (s && s.source) { s.source.close(); s.source = null; } },

  /// After a change at `path`: reload the deepest shown node that holds it.
  refreshAround(path) {
    const s = this.state;
    clearTimeout(s.refreshTimer);
    s.pending = s.pending || [];
    s.pending.push(path);
    s.refreshTimer = setTimeout(() => {
      const paths = s.pending; s.pending = [];
      const todo = new Set();
      for (const p of paths) {
        for (let n = p.length - 1; n >= s.path.length; n--) {
          const key = p.slice(0, n).join('/');
          if (n === s.path.length || s.expanded.has(key)) { todo.add(key); break; }
        }
      }
      for (const key of todo) {
        const node = s.tree.querySelector(`.node[data-path="${CSS.escape(key)}"]`);
        if (node && !s.editing) this.loadChildren(node, key ? key.split('/') : [], true).catch(report);
      }
    }, 250);
  },

  async drawRoot() {
    const s = this.state;
    const node = this.nodeElement(s.path, s.path.length ? s.path[s.path.length - 1] : '/', true);
    s.tree.replaceChildren(node);
    s.expanded.add(s.path.join('/'));
    await this.loadChildren(node, s.path, false);
  },

  nodeElement(path, key, isRoot) {
    const node = h('div', { class: 'node', 'data-path': path.join('/') });
    node.append(h('div', { class: 'line' }, h('span', { class: 'toggle', text: '' }), h('span', { class: 'key', text: key })));
    return node;
  },

  /// Loads a node's children one level deep; keeps open what was open.
  async loadChildren(node, path, refresh) {
    const s = this.state;
    const started = performance.now();
    const shallow = await call(this.url(path, 'shallow=true'));
    const line = node.querySelector(':scope > .line');
    const old = node.querySelector(':scope > .children');
    const shown = old ? Number(old.dataset.shown || CHILD_PAGE) : CHILD_PAGE;
    if (shallow === null || typeof shallow !== 'object') {
      this.drawLine(node, line, path, shallow, false);
      if (old) old.remove();
      if (refresh) line.classList.add('flash');
      return;
    }
    const keys = Object.keys(shallow).sort(keyOrder);
    this.drawLine(node, line, path, keys.length, true);
    const children = h('div', { class: 'children', 'data-count': keys.length });
    node.querySelector(':scope > .children')?.remove();
    node.append(children);
    await this.drawChildren(children, path, shallow, keys, 0, Math.max(shown, CHILD_PAGE));
    node.dataset.renderMs = String(Math.round(performance.now() - started));
  },

  /// Shows children `from..<to`: each one's own shallow read says whether it is a leaf (its
  /// value) or a parent (its child count); a few at a time, so a page of 100 stays quick.
  async drawChildren(children, path, shallow, keys, from, to) {
    const s = this.state;
    children.querySelector(':scope > .more')?.remove();
    const pending = [];
    for (const key of keys.slice(from, to)) {
      const childPath = path.concat([key]);
      const child = this.nodeElement(childPath, key, false);
      children.append(child);
      const value = shallow[key];
      if (value !== true) this.drawLine(child, child.querySelector('.line'), childPath, value, false);
      else pending.push([child, childPath]);
    }
    children.dataset.shown = String(Math.min(to, keys.length));
    if (to < keys.length) {
      children.append(h('div', { class: 'more line' }, h('button', { text: `Show ${Math.min(CHILD_PAGE, keys.length - to)} more (${keys.length - to} not shown)`,
        onclick: action(() => this.drawChildren(children, path, shallow, keys, to, to + CHILD_PAGE)) })));
    }
    let next = 0;
    const worker = async () => {
      while (next < pending.length) {
        const [child, childPath] = pending[next++];
        const v = await call(this.url(childPath, 'shallow=true'));
        const line = child.querySelector('.line');
        if (v !== null && typeof v === 'object') {
          this.drawLine(child, line, childPath, Object.keys(v).length, true);
          if (s.expanded.has(childPath.join('/'))) await this.loadChildren(child, childPath, false);
        } else this.drawLine(child, line, childPath, v, false);
      }
    };
    await Promise.all(Array.from({ length: 6 }, worker));
  },

  /// One node's line: toggle, key, value (leaves) or child count, and actions.
  drawLine(node, line, path, value, isParent) {
    const s = this.state;
    const key = path.length ? path[path.length - 1] : '/';
    const id = path.join('/');
    const open = s.expanded.has(id);
    const toggle = h('span', { class: 'toggle', text: isParent ? (open ? '▾' : '▸') : '' });
    if (isParent) toggle.addEventListener('click', () => {
      if (s.expanded.has(id) && path.length > s.path.length) { s.expanded.delete(id); node.querySelector(':scope > .children')?.remove(); toggle.textContent = '▸'; }
      else { s.expanded.add(id); toggle.textContent = '▾'; this.loadChildren(node, path, false).catch(report); }
    });
    const keyEl = path.length > s.path.length ? h('a', { href: this.link(s.ns, path), 'data-nav': true, class: 'key', text: key }) : h('span', { class: 'key', text: key });
    const parts = [toggle, keyEl];
    if (!isParent) {
      const cls = value === null ? 't-null' : typeof value === 'string' ? 't-string' : typeof value === 'number' ? 't-number' : 't-boolean';
      parts.push(h('span', { class: 'muted', text: ':' }), h('span', { class: 'value ' + cls, text: JSON.stringify(value) }));
    } else if (typeof value === 'number') parts.push(h('span', { class: 'muted', text: `(${value})` }));
    const actions = h('span', { class: 'actions' },
      !isParent && path.length ? h('button', { class: 'icon', title: 'Edit value', text: '✎', onclick: () => this.editValue(node, path, value) }) : null,
      h('button', { class: 'icon', title: 'Add child', text: '+', onclick: () => this.addChild(node, path) }),
      path.length ? h('button', { class: 'icon', title: 'Rename', text: '⇄', onclick: action(() => this.rename(path)) }) : null,
      h('button', { class: 'icon danger', title: 'Delete', text: '✕', onclick: action(() => this.remove(path)) }));
    parts.push(actions);
    line.replaceChildren(...parts);
  },

  inlineForm(anchor, inputs, save) {
    const s = this.state;
    s.editing++;
    const problem = h('div', { class: 'error-text' });
    let form;
    const close = () => { s.editing--; form.remove(); };
    form = h('form', { class: 'editor' }, h('div', { class: 'row' }, inputs), problem,
      h('div', { class: 'row' }, h('button', { class: 'primary', type: 'submit', text: 'Save' }), h('button', { type: 'button', text: 'Cancel', onclick: close })));
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      problem.textContent = '';
      Promise.resolve().then(save).then(close).catch((e) => { problem.textContent = e instanceof RequestError ? e.message : String(e && e.message || e); });
    });
    anchor.after(form);
    setTimeout(() => inputs[0].focus(), 0);
  },

  /// Text typed as a value: JSON when it parses, otherwise a string.
  typedValue(text) {
    const t = text.trim();
    if (t === '') return '';
    try { return parseJSONValue(t, 'The value'); } catch (e) { if (/^[\[{]/.test(t)) throw e; return text; }
  },

  editValue(node, path, value) {
    const input = h('textarea', { rows: 1, 'aria-label': 'value' });
    input.value = typeof value === 'string' ? value : JSON.stringify(value);
    this.inlineForm(node.querySelector('.line'), [input], async () => {
      await call(this.url(path), { method: 'PUT', body: JSON.stringify(this.typedValue(input.value)) });
      await this.reload(path.slice(0, -1));
    });
  },

  addChild(node, path) {
    const key = h('input', { type: 'text', placeholder: 'key (blank: push ID)', 'aria-label': 'child key' });
    const value = h('textarea', { rows: 1, placeholder: 'value: JSON or text', 'aria-label': 'child value' });
    this.inlineForm(node.querySelector('.line'), [key, value], async () => {
      const v = this.typedValue(value.value);
      if (v === '' ) throw new RequestError('A value is needed (an empty value would delete the node).');
      if (key.value.trim()) {
        checkKey(key.value.trim());
        await call(this.url(path.concat([key.value.trim()])), { method: 'PUT', body: JSON.stringify(v) });
      } else await call(this.url(path), { method: 'POST', body: JSON.stringify(v) });
      this.state.expanded.add(path.join('/'));
      await this.reload(path);
    });
  },

  async rename(path) {
    const newKey = window.prompt('New key for ' + path.join('/'), path[path.length - 1]);
    if (newKey === null || newKey === path[path.length - 1]) return;
    checkKey(newKey);
    const value = await call(this.url(path));
    const parent = path.slice(0, -1);
    // One multi-path update: the node appears under its new key and leaves the old one together.
    await call(this.url(parent), { method: 'PATCH', body: JSON.stringify({ [newKey]: value, [path[path.length - 1]]: null }) });
    await this.reload(parent);
  },

  async remove(path) {
    const what = path.length ? path.join('/') : 'the whole namespace ' + this.state.ns;
    if (!confirmAction(`Delete ${what}?`)) return;
    await call(this.url(path), { method: 'DELETE' });
    if (path.length <= this.state.path.length) navigate(this.link(this.state.ns, path.slice(0, -1)));
    else await this.reload(path.slice(0, -1));
  },

  async reload(path) {
    const s = this.state;
    for (let n = path.length; n >= s.path.length; n--) {
      const node = s.tree.querySelector(`.node[data-path="${CSS.escape(path.slice(0, n).join('/'))}"]`);
      if (node) { await this.loadChildren(node, path.slice(0, n), true); return; }
    }
    await this.drawRoot();
  },

  importForm(main) {
    const s = this.state;
    const at = h('input', { type: 'text', value: '/' + s.path.join('/'), 'aria-label': 'import location' });
    const file = h('input', { type: 'file', accept: '.json,application/json', 'aria-label': 'JSON file' });
    const text = h('textarea', { rows: 6, placeholder: 'or paste JSON here', 'aria-label': 'JSON' });
    this.inlineForm(main.querySelector('.toolbar'), [at, file, text], async () => {
      const body = file.files && file.files[0] ? await file.files[0].text() : text.value;
      const value = parseJSONValue(body, 'The imported file');
      const path = at.value.split('/').filter(Boolean);
      path.forEach(checkKey);
      if (!confirmAction(`Replace everything at /${path.join('/')} with the imported JSON?`)) throw new RequestError('Import cancelled.');
      await call(this.url(path), { method: 'PUT', body: JSON.stringify(value) });
      flashNotice('Imported at /' + path.join('/'));
      await this.drawRoot();
    });
  },

  async exportSubtree(path) {
    const value = await call(this.url(path));
    const blob = new Blob([JSON.stringify(value, null, 2)], { type: 'application/json' });
    const a = h('a', { href: URL.createObjectURL(blob), download: `${this.state.ns}${path.length ? '-' + path.join('-') : ''}-export.json` });
    document.body.append(a); a.click(); a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 1000);
  },

  queryBar() {
    const by = h('select', { 'aria-label': 'order by' }, h('option', { value: '$key', text: 'key' }), h('option', { value: '$value', text: 'value' }), h('option', { value: 'child', text: 'child' }));
    const child = h('input', { type: 'text', placeholder: 'child path', 'aria-label': 'child path', size: 12 });
    const op = h('select', { 'aria-label': 'comparison' }, ['equalTo', 'startAt', 'endAt'].map((o) => h('option', { value: o, text: o })));
    const value = h('input', { type: 'text', placeholder: 'value (JSON or text)', 'aria-label': 'query value', size: 14 });
    const lim = h('select', { 'aria-label': 'limit side' }, h('option', { value: 'limitToFirst', text: 'first' }), h('option', { value: 'limitToLast', text: 'last' }));
    const count = h('input', { type: 'number', min: 1, value: 50, 'aria-label': 'limit', style: 'width: 6em' });
    const result = h('div', { id: 'db-query-result' });
    const form = h('form', { class: 'query', id: 'db-query' },
      h('div', { class: 'toolbar', style: 'margin: 0' }, h('span', { class: 'muted', text: 'order by' }), by, child, op, value, lim, count,
        h('button', { class: 'primary', type: 'submit', text: 'Query' }), h('button', { type: 'button', text: 'Clear', onclick: () => result.replaceChildren() })),
      result);
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      Promise.resolve().then(async () => {
        const s = this.state;
        const orderBy = by.value === 'child' ? child.value.trim() : by.value;
        if (!orderBy) throw new RequestError('Name the child to order by.');
        const params = ['orderBy=' + encodeURIComponent(JSON.stringify(orderBy))];
        if (value.value.trim() !== '') {
          let v = this.typedValue(value.value);
          if (by.value === '$key') v = String(v);
          params.push(op.value + '=' + encodeURIComponent(JSON.stringify(v)));
        }
        if (count.value) params.push(lim.value + '=' + Number(count.value));
        const data = await call(this.url(s.path, params.join('&')));
        const keys = data && typeof data === 'object' ? Object.keys(data) : [];
        result.replaceChildren(h('div', { class: 'muted', text: `${keys.length} result${keys.length === 1 ? '' : 's'} at /${s.path.join('/')}` }),
          h('div', { class: 'tree' }, keys.map((k) => h('div', { class: 'node' }, h('div', { class: 'line' },
            h('a', { class: 'key', href: this.link(s.ns, s.path.concat([k])), 'data-nav': true, text: k }), h('span', { class: 'muted', text: ':' }),
            h('span', { class: 'value', text: JSON.stringify(data[k]).slice(0, 200) }))))));
      }).catch(report);
    });
    return form;
  },
};
"""#
}
