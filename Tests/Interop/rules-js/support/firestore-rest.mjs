// Firestore's v1 REST API with one token as `Authorization: Bearer <token>`, for plain JS
// values (numbers that are integers become integerValue, others doubleValue).
import { RESTError, readBody } from './rest-error.mjs';

/** A JS value as a Firestore Value. */
export function encodeValue(value) {
  if (value === null) return { nullValue: null };
  if (typeof value === 'boolean') return { booleanValue: value };
  if (typeof value === 'number') return Number.isInteger(value) ? { integerValue: String(value) } : { doubleValue: value };
  if (typeof value === 'string') return { stringValue: value };
  if (Array.isArray(value)) return { arrayValue: { values: value.map(encodeValue) } };
  if (typeof value === 'object') return { mapValue: { fields: encodeFields(value) } };
  throw new Error(`cannot encode ${typeof value}`);
}

export function encodeFields(object) {
  return Object.fromEntries(Object.entries(object).map(([key, value]) => [key, encodeValue(value)]));
}

/** A Firestore Value as a JS value (timestamps and references as their strings). */
export function decodeValue(value) {
  if ('nullValue' in value) return null;
  if ('booleanValue' in value) return value.booleanValue;
  if ('integerValue' in value) return Number(value.integerValue);
  if ('doubleValue' in value) return Number(value.doubleValue);
  if ('stringValue' in value) return value.stringValue;
  if ('timestampValue' in value) return value.timestampValue;
  if ('referenceValue' in value) return value.referenceValue;
  if ('arrayValue' in value) return (value.arrayValue.values ?? []).map(decodeValue);
  if ('mapValue' in value) return decodeFields(value.mapValue.fields ?? {});
  throw new Error(`cannot decode ${JSON.stringify(value)}`);
}

export function decodeFields(fields = {}) {
  return Object.fromEntries(Object.entries(fields).map(([key, value]) => [key, decodeValue(value)]));
}

const operators = { '==': 'EQUAL', '<': 'LESS_THAN', '<=': 'LESS_THAN_OR_EQUAL', '>': 'GREATER_THAN', '>=': 'GREATER_THAN_OR_EQUAL', '!=': 'NOT_EQUAL' };

export class FirestoreREST {
  constructor(base, projectId, token) {
    this.database = `projects/${projectId}/databases/(default)`;
    this.root = `${base}/v1/${this.database}/documents`;
    this.token = token;
  }

  name(path) {
    return `${this.database}/documents/${path.replace(/^\/+/, '')}`;
  }

  async request(method, url, body) {
    const headers = { 'Content-Type': 'application/json' };
    if (this.token !== undefined) headers.Authorization = `Bearer ${this.token}`;
    const response = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const answer = await readBody(response);
    const failure = Array.isArray(answer) ? answer.find((item) => item.error)?.error : answer?.error;
    if (!response.ok || failure) {
      const code = failure?.status === 'PERMISSION_DENIED' ? 'permission-denied' : String(failure?.status ?? `http-${response.status}`).toLowerCase();
      const error = new RESTError(method, url, response.status, answer, code);
      error.message = failure?.message ?? error.message;
      throw error;
    }
    return answer;
  }

  /** The document's data, or undefined when it does not exist (404). */
  async get(path) {
    try {
      const document = await this.request('GET', `${this.root}/${path}`);
      return decodeFields(document.fields);
    } catch (error) {
      if (error.status === 404) return undefined;
      throw error;
    }
  }

  /** Replaces (or creates) the document. */
  set(path, data) {
    return this.request('PATCH', `${this.root}/${path}`, { fields: encodeFields(data) });
  }

  /** Updates the given top-level fields of an existing document. */
  update(path, data) {
    const mask = Object.keys(data).map((key) => `updateMask.fieldPaths=${encodeURIComponent(key)}`).join('&');
    return this.request('PATCH', `${this.root}/${path}?${mask}&currentDocument.exists=true`, { fields: encodeFields(data) });
  }

  delete(path) {
    return this.request('DELETE', `${this.root}/${path}`);
  }

  /** A collection query: `where` is [[field, op, value], …]; returns the documents' data by id. */
  async list(collection, { where = [], limit, orderBy } = {}) {
    const segments = collection.split('/');
    const collectionId = segments.pop();
    const parent = segments.length ? `${this.root}/${segments.join('/')}` : this.root;
    const filters = where.map(([field, op, value]) => ({
      fieldFilter: { field: { fieldPath: field }, op: operators[op], value: encodeValue(value) },
    }));
    const structuredQuery = { from: [{ collectionId }] };
    if (filters.length === 1) structuredQuery.where = filters[0];
    if (filters.length > 1) structuredQuery.where = { compositeFilter: { op: 'AND', filters } };
    if (orderBy) structuredQuery.orderBy = [{ field: { fieldPath: orderBy }, direction: 'ASCENDING' }];
    if (limit !== undefined) structuredQuery.limit = limit;
    const answer = await this.request('POST', `${parent}:runQuery`, { structuredQuery });
    return Object.fromEntries(answer.filter((item) => item.document)
      .map((item) => [item.document.name.split('/').pop(), decodeFields(item.document.fields)]));
  }

  /** One atomic commit: writes are {set: [path, data]}, {update: [path, data]} or {delete: path}. */
  commit(writes) {
    return this.request('POST', `${this.root}:commit`, {
      writes: writes.map((write) => {
        if (write.set) return { update: { name: this.name(write.set[0]), fields: encodeFields(write.set[1]) } };
        if (write.update) {
          return {
            update: { name: this.name(write.update[0]), fields: encodeFields(write.update[1]) },
            updateMask: { fieldPaths: Object.keys(write.update[1]) },
            currentDocument: { exists: true },
          };
        }
        return { delete: this.name(write.delete) };
      }),
    });
  }
}
