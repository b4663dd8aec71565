// The Realtime Database REST API with one token, sent as `Authorization: Bearer <token>` or as
// `?auth=<token>`, the two ways the official clients send it.
import { RESTError, readBody } from './rest-error.mjs';

/** REST query parameters for an SDK-style query ({orderByChild, equalTo, limitToFirst, …}). */
export function queryParameters(query = {}) {
  const parameters = new URLSearchParams();
  if (query.orderByChild !== undefined) parameters.set('orderBy', JSON.stringify(query.orderByChild));
  if (query.orderByKey) parameters.set('orderBy', '"$key"');
  if (query.orderByValue) parameters.set('orderBy', '"$value"');
  for (const name of ['startAt', 'endAt', 'equalTo']) {
    if (query[name] !== undefined) parameters.set(name, JSON.stringify(query[name]));
  }
  for (const name of ['limitToFirst', 'limitToLast']) {
    if (query[name] !== undefined) parameters.set(name, String(query[name]));
  }
  return parameters;
}

export class DatabaseREST {
  constructor(base, namespace, token, style = 'bearer') {
    this.base = base;
    this.namespace = namespace;
    this.token = token;
    this.style = style;
  }

  url(path, parameters = new URLSearchParams()) {
    parameters.set('ns', this.namespace);
    if (this.token !== undefined && this.style === 'query') parameters.set('auth', this.token);
    const trimmed = path.replace(/^\/+|\/+$/g, '');
    return `${this.base}/${trimmed}.json?${parameters}`;
  }

  async request(method, path, { body, query } = {}) {
    const url = this.url(path, queryParameters(query));
    const headers = {};
    if (this.token !== undefined && this.style === 'bearer') headers.Authorization = `Bearer ${this.token}`;
    const response = await fetch(url, {
      method, headers, body: body === undefined ? undefined : JSON.stringify(body),
    });
    const answer = await readBody(response);
    if (!response.ok) {
      const message = typeof answer === 'object' && answer ? answer.error : answer;
      const code = message === 'Permission denied' ? 'permission_denied' : `http-${response.status}`;
      throw new RESTError(method, url, response.status, answer, code);
    }
    return answer;
  }

  get(path, query) { return this.request('GET', path, { query }); }
  set(path, value) { return this.request('PUT', path, { body: value }); }
  update(path, values) { return this.request('PATCH', path, { body: values }); }
  remove(path) { return this.request('DELETE', path); }
}
