extension UIScript {
    /// The Firestore view: collections, documents paged by cursor, fields with their types,
    /// editing, deleting, and a query bar; all over Firestore's REST API as the owner.
    static let firestore = #"""
// ---- Firestore -----------------------------------------------------------------------------
const PAGE = 100;
const OPS = { '==': 'EQUAL', '!=': 'NOT_EQUAL', '<': 'LESS_THAN', '<=': 'LESS_THAN_OR_EQUAL', '>': 'GREATER_THAN', '>=': 'GREATER_THAN_OR_EQUAL',
  'array-contains': 'ARRAY_CONTAINS', 'in': 'IN', 'array-contains-any': 'ARRAY_CONTAINS_ANY', 'not-in': 'NOT_IN' };
const INEQUALITY = new Set(['!=', '<', '<=', '>', '>=', 'not-in']);
const LIST_OPS = new Set(['in', 'not-in', 'array-contains-any']);
const EDIT_TYPES = ['string', 'number', 'boolean', 'null', 'timestamp', 'geopoint', 'reference', 'bytes', 'map', 'array'];

function quoteSegment(s) { return /^[A-Za-z_][A-Za-z_0-9]*$/.test(s) ? s : '`' + s.replace(/\\/g, '\\\\').replace(/`/g, '\\`') + '`'; }
function fieldPath(text) { return text.split('.').map(quoteSegment).join('.'); }
function idOf(name) { const i = name.lastIndexOf('/'); return name.slice(i + 1); }
function checkId(id) {
  if (!id) throw new RequestError('An ID cannot be empty.');
  if (id.includes('/')) throw new RequestError('An ID cannot contain "/".');
  if (id === '.' || id === '..') throw new RequestError('An ID cannot be "." or "..".');
  if (/^__.*__$/.test(id)) throw new RequestError('IDs of the form __id__ are reserved.');
  if (new TextEncoder().encode(id).length > 1500) throw new RequestError('An ID must be at most 1500 bytes.');
}
function autoId() {
  const chars = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  const bytes = crypto.getRandomValues(new Uint8Array(20));
  return Array.from(bytes, (b) => chars[b % 62]).join('');
}

/// A JSON value as a Firestore value (objects are maps, whole numbers integers).
function natural(v, depth) {
  depth = depth || 0;
  if (depth > 20) throw new RequestError('The value is nested too deeply (more than 20 levels).');
  if (v === null) return { nullValue: null };
  if (typeof v === 'boolean') return { booleanValue: v };
  if (typeof v === 'number') return Number.isInteger(v) ? { integerValue: String(v) } : { doubleValue: v };
  if (typeof v === 'string') return { stringValue: v };
  if (Array.isArray(v)) return { arrayValue: { values: v.map((x) => natural(x, depth + 1)) } };
  const fields = {};
  for (const [k, x] of Object.entries(v)) fields[k] = natural(x, depth + 1);
  return { mapValue: { fields } };
}
/// A Firestore value back as plain JSON, for editing maps and arrays as text.
function plain(v) {
  if ('mapValue' in v) { const o = {}; for (const [k, x] of Object.entries(v.mapValue.fields || {})) o[k] = plain(x); return o; }
  if ('arrayValue' in v) return (v.arrayValue.values || []).map(plain);
  if ('integerValue' in v) return Number(v.integerValue);
  if ('doubleValue' in v) return Number(v.doubleValue);
  if ('booleanValue' in v) return v.booleanValue;
  if ('nullValue' in v) return null;
  if ('stringValue' in v) return v.stringValue;
  if ('timestampValue' in v) return v.timestampValue;
  if ('referenceValue' in v) return v.referenceValue;
  if ('bytesValue' in v) return v.bytesValue;
  if ('geoPointValue' in v) return v.geoPointValue;
  return null;
}

/// The BSON types (maps of one reserved key) by their key, named as Firestore's data-types page names them.
const BSON_LABELS = {
  __min__: 'MinKey', __max__: 'MaxKey', __oid__: 'ObjectId', __int__: 'Int32', __decimal128__: 'Decimal128',
  __regex__: 'regex', __request_timestamp__: 'BSON timestamp', __binary__: 'BSON binary data',
};

/// How a value is shown: its type name, a one-line text, and children for maps and arrays.
function describe(v) {
  if ('stringValue' in v) return { type: 'string', cls: 't-string', text: JSON.stringify(v.stringValue) };
  if ('integerValue' in v) return { type: 'integer', cls: 't-number', text: String(v.integerValue) };
  if ('doubleValue' in v) return { type: 'double', cls: 't-number', text: String(v.doubleValue) };
  if ('booleanValue' in v) return { type: 'boolean', cls: 't-boolean', text: String(v.booleanValue) };
  if ('nullValue' in v) return { type: 'null', cls: 't-null', text: 'null' };
  if ('timestampValue' in v) return { type: 'timestamp', cls: 't-timestamp', text: v.timestampValue };
  if ('geoPointValue' in v) return { type: 'geopoint', cls: 't-geopoint', text: `[${v.geoPointValue.latitude || 0}° , ${v.geoPointValue.longitude || 0}°]` };
  if ('referenceValue' in v) return { type: 'reference', cls: 't-reference', text: v.referenceValue.replace(/^projects\/[^/]+\/databases\/[^/]+\/documents\//, ''), ref: v.referenceValue };
  if ('bytesValue' in v) return { type: 'bytes', cls: 't-bytes', text: 'b64:' + v.bytesValue };
  if ('arrayValue' in v) { const values = v.arrayValue.values || []; return { type: `array (${values.length})`, cls: '', text: '', children: values.map((x, i) => [String(i), x]) }; }
  if ('mapValue' in v) {
    const fields = v.mapValue.fields || {};
    const keys = Object.keys(fields);
    if (fields.__type__ && fields.__type__.stringValue === '__vector__' && fields.value && fields.value.arrayValue) {
      const values = (fields.value.arrayValue.values || []).map((x) => x.doubleValue ?? x.integerValue);
      return { type: `vector (${values.length})`, cls: 't-special', text: '[' + values.join(', ') + ']' };
    }
    if (keys.length === 1 && BSON_LABELS[keys[0]]) {
      return { type: BSON_LABELS[keys[0]], cls: 't-special', text: JSON.stringify(plain(fields[keys[0]])) };
    }
    return { type: `map (${keys.length})`, cls: '', text: '', children: keys.sort().map((k) => [k, fields[k]]) };
  }
  return { type: 'unknown', cls: '', text: JSON.stringify(v) };
}

/// Reads an editor's type and text as a Firestore value, or throws with what is wrong.
function valueFrom(type, text, project, database) {
  switch (type) {
    case 'string': return { stringValue: text };
    case 'number': {
      const t = text.trim();
      if (/^-?\d+$/.test(t)) {
        const n = BigInt(t);
        if (n > 9223372036854775807n || n < -9223372036854775808n) throw new RequestError('Integers must fit in 64 bits.');
        return { integerValue: t };
      }
      if (t === 'NaN') return { doubleValue: 'NaN' };
      const n = Number(t);
      if (t === '' || !Number.isFinite(n)) throw new RequestError(`"${text}" is not a number.`);
      return { doubleValue: n };
    }
    case 'boolean':
      if (text !== 'true' && text !== 'false') throw new RequestError('A boolean is true or false.');
      return { booleanValue: text === 'true' };
    case 'null': return { nullValue: null };
    case 'timestamp': {
      const t = text.trim();
      if (!/^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d{1,9})?)?(Z|[+-]\d\d:\d\d)$/.test(t) || Number.isNaN(Date.parse(t))) {
        throw new RequestError('A timestamp is RFC 3339, e.g. 2024-05-01T12:00:00Z.');
      }
      return { timestampValue: t };
    }
    case 'geopoint': {
      const parts = text.split(',').map((s) => Number(s.trim()));
      if (parts.length !== 2 || parts.some((n) => !Number.isFinite(n)) || Math.abs(parts[0]) > 90 || Math.abs(parts[1]) > 180) {
        throw new RequestError('A geopoint is "latitude, longitude" with latitude in [-90, 90] and longitude in [-180, 180].');
      }
      return { geoPointValue: { latitude: parts[0], longitude: parts[1] } };
    }
    case 'reference': {
      const segments = text.trim().replace(/^\/+|\/+$/g, '').split('/');
      if (segments.length % 2 !== 0 || segments.some((s) => !s || s === '.' || s === '..')) {
        throw new RequestError('A reference is a document path: collection/document[/collection/document…].');
      }
      return { referenceValue: `projects/${project}/databases/${database}/documents/${segments.join('/')}` };
    }
    case 'bytes': {
      const t = text.trim();
      try { atob(t); } catch (e) { throw new RequestError('Bytes are given in base64.'); }
      return { bytesValue: t };
    }
    case 'map': case 'array': {
      let parsed;
      try { parsed = JSON.parse(text); } catch (e) { throw new RequestError(`The ${type} is not valid JSON: ${e.message}`); }
      if (type === 'map' && (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))) throw new RequestError('A map is a JSON object.');
      if (type === 'array' && !Array.isArray(parsed)) throw new RequestError('An array is a JSON array.');
      return natural(parsed);
    }
  }
  throw new RequestError('Unknown type ' + type);
}
function editorText(v) {
  const d = describe(v);
  if ('stringValue' in v) return ['string', v.stringValue];
  if ('integerValue' in v || 'doubleValue' in v) return ['number', String(v.integerValue ?? v.doubleValue)];
  if ('booleanValue' in v) return ['boolean', String(v.booleanValue)];
  if ('nullValue' in v) return ['null', ''];
  if ('timestampValue' in v) return ['timestamp', v.timestampValue];
  if ('geoPointValue' in v) return ['geopoint', `${v.geoPointValue.latitude || 0}, ${v.geoPointValue.longitude || 0}`];
  if ('referenceValue' in v) return ['reference', d.text];
  if ('bytesValue' in v) return ['bytes', v.bytesValue];
  if ('arrayValue' in v) return ['array', JSON.stringify(plain(v), null, 2)];
  return ['map', JSON.stringify(plain(v), null, 2)];
}

/// A small form: field name (optional), type, value. `done(name, value)` saves.
function fieldEditor(options, done, cancel) {
  const [type0, text0] = options.value ? editorText(options.value) : ['string', ''];
  const name = options.askName ? h('input', { type: 'text', placeholder: 'field', value: options.name || '', 'aria-label': 'field name' }) : null;
  const type = h('select', { 'aria-label': 'type' }, EDIT_TYPES.map((t) => h('option', { value: t, text: t, selected: t === type0 })));
  const text = h('textarea', { 'aria-label': 'value', rows: 1, placeholder: 'value' });
  text.value = text0;
  const problem = h('div', { class: 'error-text' });
  const hint = () => { text.placeholder = { timestamp: '2024-05-01T12:00:00Z', geopoint: '48.85, 2.35', reference: 'users/ada', bytes: 'base64', map: '{"key": "value"}', array: '[1, "two"]', boolean: 'true or false', null: '' }[type.value] || 'value'; text.disabled = type.value === 'null'; text.rows = type.value === 'map' || type.value === 'array' ? 5 : 1; };
  type.addEventListener('change', hint); hint();
  const form = h('form', { class: 'editor' },
    h('div', { class: 'row' }, name, type, text), problem,
    h('div', { class: 'row' }, h('button', { class: 'primary', type: 'submit', text: 'Save' }), h('button', { type: 'button', text: 'Cancel', onclick: () => cancel() })));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    problem.textContent = '';
    Promise.resolve().then(() => {
      const fieldName = name ? name.value.trim() : options.name;
      if (name && !fieldName) throw new RequestError('A field needs a name.');
      return done(fieldName, valueFrom(type.value, text.value, options.project, options.database));
    }).catch((e) => { problem.textContent = e instanceof RequestError ? e.message : String(e && e.message || e); });
  });
  setTimeout(() => (name || text).focus(), 0);
  return form;
}

views.firestore = {
  enter(main, path) {
    const parts = decodeSegments(path).slice(1);
    const s = this.state = {
      database: parts[0] && parts[0] !== 'default' ? parts[0] : '(default)',
      path: parts[1] === 'data' ? parts.slice(2) : [],
      editing: 0, query: this.state && this.state.query || {},
    };
    if (!app.config.firestore) { main.append(h('p', { class: 'muted', text: 'The Firestore emulator is not running.' })); return; }
    s.base = `${origin('firestore')}/v1/projects/${encodeURIComponent(app.config.projectId)}/databases/${encodeURIComponent(s.database)}/documents`;
    const isDoc = s.path.length > 0 && s.path.length % 2 === 0;
    s.collection = isDoc ? s.path.slice(0, -1) : s.path;
    s.document = isDoc ? s.path : null;
    s.parent = s.collection.slice(0, -1);

    const dbInput = h('input', { type: 'text', value: s.database, 'aria-label': 'database', size: 14 });
    const crumbs = h('div', { class: 'crumbs grow' }, h('a', { href: this.link(s.database, []), 'data-nav': true, text: '/' }));
    s.path.forEach((seg, i) => crumbs.append(h('span', { class: 'muted', text: i ? '/' : '' }), h('a', { href: this.link(s.database, s.path.slice(0, i + 1)), 'data-nav': true, text: seg })));
    main.append(h('div', { class: 'toolbar' },
      h('label', { class: 'muted', text: 'Database ' }), dbInput,
      h('button', { text: 'Open', onclick: () => navigate(this.link(dbInput.value.trim() || '(default)', [])) }),
      crumbs,
      h('button', { class: 'danger', id: 'fs-clear', text: 'Clear all data', onclick: action(() => this.clearAll()) })));
    main.append(this.queryBar());
    s.columns = {
      collections: h('section', { class: 'column', id: 'fs-collections' }),
      documents: h('section', { class: 'column', id: 'fs-documents' }),
      document: h('section', { class: 'column', id: 'fs-document' }),
    };
    main.append(h('div', { class: 'columns' }, s.columns.collections, s.columns.documents, s.columns.document));
    this.drawCollections().catch(report);
    this.drawDocuments(false).catch(report);
    this.drawDocument().catch(report);
    // Live: what another client writes shows up within a few seconds.
    every(3000, () => {
      if (s.editing || s !== this.state) return;
      this.drawCollections().catch(() => {});
      if (!s.pagesLoaded || s.pagesLoaded <= 1) this.drawDocuments(false).catch(() => {});
      this.drawDocument().catch(() => {});
    });
  },
  link(database, path) { return '/firestore/' + (database === '(default)' ? 'default' : encodeURIComponent(database)) + '/data' + (path.length ? '/' + encodeSegments(path) : ''); },
  url(path, suffix) { return this.state.base + (path.length ? '/' + encodeSegments(path) : '') + (suffix || ''); },
  fullName(path) { return `projects/${app.config.projectId}/databases/${this.state.database}/documents/${path.join('/')}`; },

  async listCollections(docPath) {
    let ids = [], pageToken;
    do {
      const r = await call(this.url(docPath, ':listCollectionIds'), { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ pageSize: 500, pageToken }) });
      ids = ids.concat(r && r.collectionIds || []);
      pageToken = r && r.nextPageToken;
    } while (pageToken && ids.length < 5000);
    return ids.sort();
  },

  async drawCollections() {
    const s = this.state, col = s.columns.collections;
    const ids = await this.listCollections(s.parent);
    const key = JSON.stringify(ids);
    if (col.dataset.key === key) return;
    col.dataset.key = key;
    const list = h('div', { class: 'list' });
    for (const id of ids) list.append(h('a', { href: this.link(s.database, s.parent.concat([id])), 'data-nav': true, text: id, class: s.collection[s.collection.length - 1] === id && s.collection.length === s.parent.length + 1 ? 'selected' : '' }));
    if (!ids.length) list.append(h('div', { class: 'empty', text: s.parent.length ? 'No subcollections.' : 'No collections yet.' }));
    col.replaceChildren(
      h('header', {}, h('span', { class: 'name', text: s.parent.length ? s.parent[s.parent.length - 1] : '(root)' }),
        h('button', { text: '+ Collection', id: 'fs-add-collection', onclick: () => this.startCollection(col) })),
      list);
  },

  startCollection(col) {
    const s = this.state;
    s.editing++;
    const idInput = h('input', { type: 'text', placeholder: 'collection ID', 'aria-label': 'collection ID' });
    const docInput = h('input', { type: 'text', placeholder: 'document ID (blank: auto-ID)', 'aria-label': 'document ID' });
    let form;
    const close = () => { s.editing--; form.remove(); };
    form = fieldEditor({ askName: true, project: app.config.projectId, database: s.database }, async (name, value) => {
      const cid = idInput.value.trim(); checkId(cid);
      const did = docInput.value.trim() || autoId(); checkId(did);
      await this.createDocument(s.parent.concat([cid, did]), { [name]: value });
      close();
      navigate(this.link(s.database, s.parent.concat([cid, did])));
    }, close);
    form.prepend(h('div', { class: 'row' }, idInput, docInput));
    col.append(form);
    setTimeout(() => idInput.focus(), 0);
  },

  async createDocument(path, fields) {
    await call(this.url(path, '?currentDocument.exists=false'), { method: 'PATCH', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ fields }) });
  },

  queryBar() {
    const s = this.state, q = s.query;
    const field = h('input', { type: 'text', placeholder: 'field', value: q.field || '', 'aria-label': 'filter field', size: 12 });
    const op = h('select', { 'aria-label': 'operator' }, Object.keys(OPS).map((o) => h('option', { value: o, text: o, selected: o === (q.op || '==') })));
    const value = h('input', { type: 'text', placeholder: 'value (JSON or text)', value: q.value || '', 'aria-label': 'filter value', size: 18 });
    const order = h('input', { type: 'text', placeholder: 'order by', value: q.order || '', 'aria-label': 'order by', size: 12 });
    const dir = h('select', { 'aria-label': 'direction' }, h('option', { value: 'asc', text: 'asc' }), h('option', { value: 'desc', text: 'desc', selected: q.dir === 'desc' }));
    const limit = h('input', { type: 'number', min: 1, placeholder: 'limit', value: q.limit || '', 'aria-label': 'limit', style: 'width: 6em' });
    const code = h('code', { id: 'fs-query-code' });
    const problem = h('div', { class: 'error-text' });
    const read = () => ({ field: field.value.trim(), op: op.value, value: value.value, order: order.value.trim(), dir: dir.value, limit: limit.value.trim() });
    const show = () => { try { problem.textContent = ''; code.textContent = this.sdkCode(read()); } catch (e) { problem.textContent = e.message; } };
    for (const el of [field, op, value, order, dir, limit]) el.addEventListener('input', show);
    show();
    const form = h('form', { class: 'query', id: 'fs-query' },
      h('div', { class: 'toolbar', style: 'margin: 0' }, h('span', { class: 'muted', text: 'where' }), field, op, value, h('span', { class: 'muted', text: 'order by' }), order, dir, limit,
        h('button', { class: 'primary', type: 'submit', text: 'Run' }),
        h('button', { type: 'button', text: 'Reset', onclick: () => { s.query = {}; this.state.query = {}; route(); } })),
      code, problem);
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      try { this.structured(read(), null); } catch (e) { problem.textContent = e.message; return; }
      s.query = read();
      this.drawDocuments(false).catch(report);
    });
    return form;
  },

  filterValue(q) {
    let v;
    try { v = JSON.parse(q.value); } catch (e) { v = q.value; }
    if (LIST_OPS.has(q.op) && !Array.isArray(v)) throw new RequestError(`'${q.op}' needs a JSON array, e.g. ["a", "b"].`);
    return v;
  },

  sdkCode(q) {
    const s = this.state;
    const parts = [`collection(db, ${JSON.stringify(s.collection.join('/') || '…')})`];
    if (q.field) parts.push(`where(${JSON.stringify(q.field)}, ${JSON.stringify(q.op)}, ${JSON.stringify(this.filterValue(q))})`);
    if (q.order) parts.push(`orderBy(${JSON.stringify(q.order)}${q.dir === 'desc' ? ', "desc"' : ''})`);
    if (q.limit) parts.push(`limit(${Number(q.limit)})`);
    return `query(${parts.join(', ')})`;
  },

  /// The structured query for one page: the user's filter and order, then __name__, so a page
  /// starts right after the previous one's last document (a cursor, never an offset).
  structured(q, after) {
    const s = this.state;
    const sq = { from: [{ collectionId: s.collection[s.collection.length - 1] }] };
    if (q.field) sq.where = { fieldFilter: { field: { fieldPath: fieldPath(q.field) }, op: OPS[q.op], value: natural(this.filterValue(q)) } };
    const direction = q.dir === 'desc' ? 'DESCENDING' : 'ASCENDING';
    const orderFields = q.order ? [q.order] : (q.field && INEQUALITY.has(q.op) ? [q.field] : []);
    sq.orderBy = orderFields.map((f) => ({ field: { fieldPath: fieldPath(f) }, direction })).concat([{ field: { fieldPath: '__name__' }, direction: orderFields.length ? direction : 'ASCENDING' }]);
    sq.select = { fields: orderFields.map((f) => ({ fieldPath: fieldPath(f) })).concat([{ fieldPath: '__name__' }]) };
    if (after) sq.startAt = { values: after.values.concat([{ referenceValue: after.name }]), before: false };
    if (q.limit && Number(q.limit) > 0) {
      const left = Number(q.limit) - (after ? after.count : 0);
      sq.limit = Math.max(0, Math.min(PAGE, left));
    } else sq.limit = PAGE;
    s.orderFields = orderFields;
    return sq;
  },

  async fetchPage(after) {
    const s = this.state;
    const sq = this.structured(s.query, after);
    if (sq.limit === 0) return [];
    const rows = await call(this.url(s.parent, ':runQuery'), { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ structuredQuery: sq }) });
    return (rows || []).filter((r) => r.document).map((r) => r.document);
  },

  async drawDocuments(append) {
    const s = this.state, col = s.columns.documents;
    if (!s.collection.length) { col.replaceChildren(h('div', { class: 'empty', text: 'Choose a collection.' })); return; }
    const started = performance.now();
    let list = col.querySelector('.list');
    const after = append ? s.cursor : null;
    const docs = await this.fetchPage(after);
    if (!append) {
      const key = JSON.stringify([s.query, docs.map((d) => d.name)]);
      if (col.dataset.key === key) return;
      col.dataset.key = key;
      s.pagesLoaded = 0; s.count = 0;
      list = h('div', { class: 'list', id: 'fs-document-list' });
      col.replaceChildren(
        h('header', {}, h('span', { class: 'name', text: s.collection[s.collection.length - 1] }),
          h('button', { text: '+ Document', id: 'fs-add-document', onclick: () => this.addDocument(col) }),
          h('button', { class: 'icon danger', title: 'Delete collection', text: '🗑', id: 'fs-delete-collection', onclick: action(() => this.deleteCollectionConfirmed()) })),
        list);
    }
    const more = list.querySelector('.more'); if (more) more.remove();
    const current = s.document && s.document[s.document.length - 1];
    for (const d of docs) {
      const id = idOf(d.name);
      list.append(h('a', { href: this.link(s.database, s.collection.concat([id])), 'data-nav': true, text: id, class: id === current ? 'selected' : '' }));
    }
    s.count += docs.length; s.pagesLoaded++;
    if (docs.length) {
      const last = docs[docs.length - 1];
      s.cursor = { name: last.name, count: s.count, values: s.orderFields.map((f) => this.valueAt(last, f) || { nullValue: null }) };
    }
    const pageFull = docs.length === PAGE && !(s.query.limit && s.count >= Number(s.query.limit));
    if (pageFull) list.append(h('div', { class: 'more' }, h('button', { text: 'Load more', id: 'fs-more', onclick: action(() => this.drawDocuments(true)) })));
    if (!s.count) list.append(h('div', { class: 'empty', text: s.query.field ? 'No documents match.' : 'No documents.' }));
    col.dataset.renderMs = String(Math.round(performance.now() - started));
    col.dataset.count = String(s.count);
  },

  valueAt(doc, path) {
    let v = { mapValue: { fields: doc.fields || {} } };
    for (const seg of path.split('.')) { v = v && v.mapValue && v.mapValue.fields && v.mapValue.fields[seg]; }
    return v;
  },

  addDocument(col) {
    const s = this.state;
    s.editing++;
    const idInput = h('input', { type: 'text', placeholder: 'document ID (blank: auto-ID)', 'aria-label': 'document ID' });
    let form;
    const close = () => { s.editing--; form.remove(); };
    form = fieldEditor({ askName: true, project: app.config.projectId, database: s.database }, async (name, value) => {
      const id = idInput.value.trim() || autoId(); checkId(id);
      await this.createDocument(s.collection.concat([id]), { [name]: value });
      close();
      navigate(this.link(s.database, s.collection.concat([id])));
    }, close);
    form.prepend(h('div', { class: 'row' }, idInput));
    col.querySelector('header').after(form);
  },

  async drawDocument() {
    const s = this.state, col = s.columns.document;
    if (!s.document) { col.replaceChildren(h('div', { class: 'empty', text: s.collection.length ? 'Choose a document.' : '' })); return; }
    let doc = null;
    try { doc = await call(this.url(s.document)); } catch (e) { if (!/^404/.test(e.message)) throw e; }
    const subs = await this.listCollections(s.document);
    const key = JSON.stringify([doc, subs]);
    if (col.dataset.key === key || s.editing) return;
    col.dataset.key = key;
    const id = s.document[s.document.length - 1];
    const fields = h('div', { class: 'fields', id: 'fs-fields' });
    if (!doc) fields.append(h('div', { class: 'empty', text: 'This document does not exist' + (subs.length ? ' (it has subcollections).' : '.') }));
    else {
      const entries = Object.entries(doc.fields || {}).sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0);
      for (const [name, value] of entries) fields.append(this.fieldRow(name, value, true));
      if (!entries.length) fields.append(h('div', { class: 'empty', text: 'No fields.' }));
    }
    const subList = h('div', { class: 'list' }, subs.map((c) => h('a', { href: this.link(s.database, s.document.concat([c])), 'data-nav': true, text: '▸ ' + c })));
    col.replaceChildren(...[
      h('header', {}, h('span', { class: 'name', text: id, title: s.document.join('/') }),
        h('button', { text: '+ Field', id: 'fs-add-field', onclick: () => this.editField(fields, null) }),
        h('button', { class: 'icon danger', title: 'Delete document', text: '🗑', id: 'fs-delete-document', onclick: action(() => this.deleteDocument()) })),
      fields,
      subs.length ? h('header', {}, h('h2', { text: 'Subcollections' })) : null, subList,
      doc ? h('div', { class: 'muted', style: 'padding: 8px 12px; font-size: 12px' }, 'Updated ' + doc.updateTime) : null].filter(Boolean));
  },

  fieldRow(name, value, topLevel) {
    const d = describe(value);
    const row = h('div', { class: 'field', 'data-field': name },
      h('span', { class: 'key', text: name + ':' }),
      d.ref ? h('a', { class: 'value ' + d.cls, href: this.link(this.state.database, d.text.split('/')), 'data-nav': true, text: d.text })
        : h('span', { class: 'value ' + d.cls, text: d.text }),
      h('span', { class: 'type', text: d.type }),
      topLevel ? h('span', { class: 'actions' },
        h('button', { class: 'icon', title: 'Edit field', text: '✎', onclick: () => this.editField(row, name, value) }),
        h('button', { class: 'icon danger', title: 'Delete field', text: '✕', onclick: action(() => this.deleteField(name)) })) : null);
    if (!d.children) return row;
    return h('div', {}, row, h('div', { class: 'nested' }, d.children.map(([k, v]) => this.fieldRow(k, v, false))));
  },

  editField(anchor, name, value) {
    const s = this.state;
    s.editing++;
    let form;
    const close = () => { s.editing--; form.remove(); s.columns.document.dataset.key = ''; };
    form = fieldEditor({ askName: name === null, name, value, project: app.config.projectId, database: s.database }, async (fieldName, v) => {
      const mask = 'updateMask.fieldPaths=' + encodeURIComponent(quoteSegment(fieldName));
      await call(this.url(s.document, '?' + mask + '&currentDocument.exists=true'), { method: 'PATCH', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ fields: { [fieldName]: v } }) })
        .catch(async (e) => {
          // A missing document (one that only has subcollections) is created by its first field.
          if (!/^404/.test(e.message)) throw e;
          await this.createDocument(s.document, { [fieldName]: v });
        });
      close();
      await this.drawDocument();
      flashNotice(`Saved ${fieldName}.`);
    }, close);
    if (name === null) anchor.prepend(form); else anchor.after(form);
  },

  async deleteField(name) {
    const s = this.state;
    if (!confirmAction(`Delete the field "${name}"?`)) return;
    await call(this.url(s.document, '?updateMask.fieldPaths=' + encodeURIComponent(quoteSegment(name)) + '&currentDocument.exists=true'), { method: 'PATCH', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ fields: {} }) });
    s.columns.document.dataset.key = '';
    await this.drawDocument();
  },

  async deleteDocument() {
    const s = this.state;
    if (!confirmAction(`Delete the document ${s.document.join('/')}? Its subcollections stay.`)) return;
    await call(this.url(s.document), { method: 'DELETE' });
    navigate(this.link(s.database, s.collection));
  },

  async deleteCollectionConfirmed() {
    const s = this.state;
    const path = s.collection;
    if (!confirmAction(`Delete the collection ${path.join('/')} with all its documents and their subcollections?`)) return;
    notice(`Deleting ${path.join('/')}…`);
    const count = await this.deleteCollection(path);
    navigate(this.link(s.database, s.parent));
    flashNotice(`Deleted ${count} documents.`);
  },

  /// Deletes a collection page by page (300 documents per commit), subcollections first.
  async deleteCollection(path) {
    let count = 0;
    for (;;) {
      const r = await call(this.url(path, '?pageSize=300&mask.fieldPaths=__name__&showMissing=true'));
      const names = (r && r.documents || []).map((d) => d.name);
      if (!names.length) return count;
      for (const name of names) {
        const docPath = path.concat([idOf(name)]);
        for (const sub of await this.listCollections(docPath)) count += await this.deleteCollection(docPath.concat([sub]));
      }
      await call(this.state.base.replace(/\/documents$/, '/documents:commit'), { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ writes: names.map((n) => ({ delete: n })) }) });
      count += names.length;
    }
  },

  async clearAll() {
    const s = this.state;
    if (!confirmAction(`Delete every document of database ${s.database}?`)) return;
    await call(`${origin('firestore')}/emulator/v1/projects/${encodeURIComponent(app.config.projectId)}/databases/${encodeURIComponent(s.database)}/documents`, { method: 'DELETE' });
    navigate(this.link(s.database, []));
    flashNotice('All Firestore data of ' + s.database + ' deleted.');
  },
};
"""#
}
