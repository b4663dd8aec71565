/** A REST answer other than 2xx, with a `code` assertFails recognises for denials. */
export class RESTError extends Error {
  constructor(method, url, status, body, code) {
    super(`${method} ${url} → ${status} ${typeof body === 'string' ? body : JSON.stringify(body)}`);
    this.status = status;
    this.body = body;
    this.code = code;
  }
}

/** Parses a JSON body, keeping the text when it is not JSON. */
export async function readBody(response) {
  const text = await response.text();
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
