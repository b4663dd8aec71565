// The little of a browser DOM that the Realtime Database SDK's long-polling transport
// (BrowserPollConnection) touches, for Node: `document` with a body, hidden iframes whose
// <script> children load their `src` (run in the iframe's own global, whose `parent` is this
// process's `window`), and iframes with a `src` whose page scripts run and get `pagehide` and
// `unload` when the iframe is removed (the SDK's disconnect frame). Import it before the SDK.
//
// With a `document`, the browser build of the SDK counts long-polling as available. Node has no
// localStorage, so the SDK's storage is in memory, which it treats as "WebSocket failed before":
// it starts on long-polling and upgrades to a WebSocket (unless forceLongPolling() was called).
import vm from 'node:vm';

const loads = new Set();

function resolveURL(url, base) {
  return new URL(url, base).href;
}

async function fetchText(url, signal) {
  const response = await fetch(url, { signal });
  const text = await response.text();
  return { ok: response.ok, text };
}

class Element {
  constructor(tagName, ownerDocument) {
    this.tagName = tagName.toUpperCase();
    this.ownerDocument = ownerDocument;
    this.style = {};
    this.children = [];
    this.parentNode = null;
  }

  appendChild(child) {
    child.parentNode = this;
    this.children.push(child);
    child.attached?.();
    return child;
  }

  removeChild(child) {
    this.children = this.children.filter((c) => c !== child);
    child.parentNode = null;
    child.detached?.();
    return child;
  }

  set innerHTML(value) {
    for (const child of [...this.children]) this.removeChild(child);
  }
}

class ScriptElement extends Element {
  attached() {
    if (!this.src) return;
    const frame = this.ownerDocument.frame;
    const controller = new AbortController();
    this.abort = () => controller.abort();
    const load = (async () => {
      let result;
      try {
        result = await fetchText(resolveURL(this.src, frame.base), controller.signal);
      } catch {
        if (!controller.signal.aborted) this.onerror?.();
        return;
      }
      if (controller.signal.aborted || !frame.alive) return;
      if (!result.ok) {
        this.onerror?.();
        return;
      }
      try {
        vm.runInContext(result.text, frame.context, { filename: this.src });
      } catch (error) {
        frame.errors.push(error);
      }
      this.onload?.();
    })();
    loads.add(load);
    load.finally(() => loads.delete(load));
  }

  detached() {
    this.abort?.();
  }
}

/** The document inside an iframe; scripts added to its body run in `frame.context`. */
class FrameDocument {
  constructor(frame) {
    this.frame = frame;
    this.body = new Element('body', this);
  }

  open() {}
  write() {}
  close() {}

  createElement(tag) {
    return tag.toLowerCase() === 'script' ? new ScriptElement(tag, this) : new Element(tag, this);
  }
}

class IFrameElement extends Element {
  constructor(ownerDocument) {
    super('iframe', ownerDocument);
    this.alive = false;
    this.errors = [];
    this.listeners = { pagehide: [], unload: [] };
    const frameWindow = {
      addEventListener: (type, listener) => this.listeners[type]?.push(listener),
      removeEventListener() {},
      navigator: {
        // Like a browser's beacon: a POST that outlives the frame.
        sendBeacon: (url) => {
          const sent = fetch(resolveURL(url, this.base), { method: 'POST', body: '' }).then((r) => r.text(), () => {});
          loads.add(sent);
          sent.finally(() => loads.delete(sent));
          return true;
        },
      },
      parent: globalThis,
      console,
    };
    frameWindow.window = frameWindow;
    this.context = vm.createContext(frameWindow);
    this.contentWindow = frameWindow;
    this.contentDocument = new FrameDocument(this);
    this.contentWindow.document = this.contentDocument;
    this.src = '';
  }

  /** The URL relative script and beacon URLs resolve against. */
  get base() {
    return this.src || 'http://localhost/';
  }

  attached() {
    this.alive = true;
    if (!this.src) return;
    // A page of its own (the disconnect frame): run its inline scripts.
    const load = (async () => {
      let result;
      try {
        result = await fetchText(this.src);
      } catch {
        return;
      }
      if (!this.alive || !result.ok) return;
      for (const [, code] of result.text.matchAll(/<script>([\s\S]*?)<\/script>/g)) {
        try {
          vm.runInContext(code, this.context, { filename: this.src });
        } catch (error) {
          this.errors.push(error);
        }
      }
    })();
    loads.add(load);
    load.finally(() => loads.delete(load));
  }

  detached() {
    this.alive = false;
    for (const child of [...this.contentDocument.body.children]) this.contentDocument.body.removeChild(child);
    for (const type of ['pagehide', 'unload']) {
      for (const listener of this.listeners[type]) {
        try {
          listener({ type });
        } catch (error) {
          this.errors.push(error);
        }
      }
    }
  }
}

class Document {
  constructor() {
    this.readyState = 'complete';
    this.domain = 'localhost';
    this.body = new Element('body', this);
  }

  createElement(tag) {
    return tag.toLowerCase() === 'iframe' ? new IFrameElement(this) : new Element(tag, this);
  }

  addEventListener() {}
  removeEventListener() {}
}

globalThis.window = globalThis;
globalThis.document = new Document();

/** Resolves when every script load and beacon started so far has finished. */
export async function settled() {
  while (loads.size > 0) await Promise.allSettled([...loads]);
}
