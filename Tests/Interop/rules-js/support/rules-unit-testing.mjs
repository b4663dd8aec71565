// A small stand-in for @firebase/rules-unit-testing (v2+ API) over the vendored modular SDK:
// the same discovery, rules loading, tokens and clearing calls the library makes, so the
// emulators see exactly the requests a project's rules test suite sends. Each context also
// carries the token the SDK sends (`token`) and REST clients that send the same token.
import { hostAndPort, sdkVersion } from './environment.mjs';
import { mockToken } from './mock-token.mjs';
import { DatabaseREST } from './database-rest.mjs';
import { FirestoreREST } from './firestore-rest.mjs';

const cdn = `https://www.gstatic.com/firebasejs/${sdkVersion}`;
let appModule, databaseModule, firestoreModule;

/** The modular SDK modules (firebase-app, firebase-database; firebase-firestore on demand). */
export async function sdk({ firestore = false } = {}) {
  appModule ??= await import(`${cdn}/firebase-app.js`);
  databaseModule ??= await import(`${cdn}/firebase-database.js`);
  if (firestore) firestoreModule ??= await import(`${cdn}/firebase-firestore.js`);
  return { app: appModule, database: databaseModule, firestore: firestoreModule };
}

const hostVariables = {
  database: 'FIREBASE_DATABASE_EMULATOR_HOST',
  firestore: 'FIRESTORE_EMULATOR_HOST',
  hub: 'FIREBASE_EMULATOR_HUB',
};

function fromVariable(name) {
  return hostAndPort(hostVariables[name]);
}

/** `http://host:port` of an emulator. */
export function baseURL({ host, port }) {
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/** The hub's `GET /emulators`, reduced to host and port per emulator, as the library reads it. */
export async function discoverEmulators(hub) {
  const response = await fetch(`${baseURL(hub)}/emulators`);
  if (!response.ok) {
    throw new Error(`HTTP Error ${response.status} when attempting to reach Emulator Hub at ${response.url}, are you sure it is running?`);
  }
  const listed = await response.json();
  const found = {};
  for (const name of ['database', 'firestore', 'storage', 'hub']) {
    if (listed[name]) found[name] = { host: listed[name].host, port: listed[name].port };
  }
  return found;
}

/** `PUT /.settings/rules.json?ns=<p>` as owner; the response text is the error when not ok. */
export async function loadDatabaseRules(database, namespace, rules) {
  const response = await fetch(`${baseURL(database)}/.settings/rules.json?ns=${encodeURIComponent(namespace)}`, {
    method: 'PUT', headers: { Authorization: 'Bearer owner' }, body: rules,
  });
  if (!response.ok) throw new Error(await response.text());
}

/** `PUT /emulator/v1/projects/<p>:securityRules` with one unnamed file, as the library sends it. */
export async function loadFirestoreRules(firestore, projectId, rules) {
  const response = await fetch(`${baseURL(firestore)}/emulator/v1/projects/${projectId}:securityRules`, {
    method: 'PUT', body: JSON.stringify({ rules: { files: [{ content: rules }] } }),
  });
  if (!response.ok) throw new Error(await response.text());
}

/**
 * Discovers the emulators (the hub's /emulators when FIREBASE_EMULATOR_HUB or `hub` is given,
 * else the *_EMULATOR_HOST variables), loads any rules given, and returns the environment.
 */
export async function initializeTestEnvironment(config = {}) {
  const projectId = config.projectId || process.env.GCLOUD_PROJECT;
  if (!projectId) throw new Error('Missing projectId option or env var GCLOUD_PROJECT!');
  const hub = config.hub ?? fromVariable('hub');
  const discovered = hub ? { ...(await discoverEmulators(hub)), hub } : {};
  const emulators = {};
  for (const name of ['database', 'firestore', 'hub']) {
    const given = config[name]?.host ? { host: config[name].host, port: config[name].port } : undefined;
    const found = given ?? discovered[name] ?? fromVariable(name);
    if (found) emulators[name] = found;
  }
  if (config.database?.rules) {
    requireEmulator(emulators, 'database');
    await loadDatabaseRules(emulators.database, projectId, config.database.rules);
  }
  if (config.firestore?.rules) {
    requireEmulator(emulators, 'firestore');
    await loadFirestoreRules(emulators.firestore, projectId, config.firestore.rules);
  }
  return new RulesTestEnvironment(projectId, emulators);
}

function requireEmulator(emulators, name) {
  if (!emulators[name]) {
    throw new Error(emulators.hub
      ? `The ${name} emulator is not running (according to Emulator hub).`
      : `The host and port of the ${name} emulator must be specified.`);
  }
}

export class RulesTestEnvironment {
  #contexts = new Set();
  #destroyed = false;

  constructor(projectId, emulators) {
    this.projectId = projectId;
    this.emulators = emulators;
  }

  /** A signed-in user: `sub` and `user_id` are `uid`, the other claims come from `claims`. */
  authenticatedContext(uid, claims = {}) {
    return this.#context({ ...claims, sub: uid, user_id: uid });
  }

  unauthenticatedContext() {
    return this.#context(undefined);
  }

  /** Runs `callback` with the administrator token `owner`, then drops that context. */
  async withSecurityRulesDisabled(callback) {
    const context = this.#context('owner');
    try {
      return await callback(context);
    } finally {
      await context.cleanup();
      this.#contexts.delete(context);
    }
  }

  /** The library's clearDatabase: `set(ref('/'), null)` through the SDK as owner. */
  async clearDatabase() {
    const { database } = await sdk();
    await this.withSecurityRulesDisabled(async (context) => {
      await database.set(database.ref(await context.database(), '/'), null);
    });
  }

  /** The library's clearFirestore: `DELETE …/databases/(default)/documents` with no token. */
  async clearFirestore() {
    requireEmulator(this.emulators, 'firestore');
    const url = `${baseURL(this.emulators.firestore)}/emulator/v1/projects/${this.projectId}/databases/(default)/documents`;
    const response = await fetch(url, { method: 'DELETE' });
    if (!response.ok) throw new Error(await response.text());
  }

  async cleanup() {
    this.#destroyed = true;
    await Promise.all([...this.#contexts].map((context) => context.cleanup()));
    this.#contexts.clear();
  }

  #context(authToken) {
    if (this.#destroyed) throw new Error('This RulesTestEnvironment has already been cleaned up.');
    const context = new RulesTestContext(this.projectId, this.emulators, authToken);
    this.#contexts.add(context);
    return context;
  }
}

export class RulesTestContext {
  #app;
  #database;
  #firestore;

  constructor(projectId, emulators, authToken) {
    this.projectId = projectId;
    this.emulators = emulators;
    /** What the library passes the SDK as `mockUserToken`: claims, `owner` or undefined. */
    this.authToken = authToken;
    /** The token string the SDK sends for it (undefined: signed out). */
    this.token = authToken === undefined ? undefined : mockToken(projectId, authToken);
  }

  /** The SDK's Database for namespace = projectId, connected to the emulator with this token. */
  async database() {
    requireEmulator(this.emulators, 'database');
    if (this.#database) return this.#database;
    const { database } = await sdk();
    const { host, port } = this.emulators.database;
    const url = `${baseURL(this.emulators.database)}?ns=${encodeURIComponent(this.projectId)}`;
    this.#database = database.getDatabase(await this.#getApp(), url);
    database.connectDatabaseEmulator(this.#database, host, port,
      this.authToken === undefined ? {} : { mockUserToken: this.authToken });
    return this.#database;
  }

  /** The SDK's Firestore connected to the emulator with this token (needs WebChannel). */
  async firestore() {
    requireEmulator(this.emulators, 'firestore');
    if (this.#firestore) return this.#firestore;
    const { firestore } = await sdk({ firestore: true });
    const { host, port } = this.emulators.firestore;
    // Node has fetch streams but no XMLHttpRequest.
    this.#firestore = firestore.initializeFirestore(await this.#getApp(), { useFetchStreams: true });
    firestore.connectFirestoreEmulator(this.#firestore, host, port,
      this.authToken === undefined ? {} : { mockUserToken: this.authToken });
    return this.#firestore;
  }

  /** RTDB REST with this token: `Authorization: Bearer` (default) or `?auth=` (`style: 'query'`). */
  databaseREST(style = 'bearer') {
    requireEmulator(this.emulators, 'database');
    return new DatabaseREST(baseURL(this.emulators.database), this.projectId, this.token, style);
  }

  /** Firestore REST (v1) with this token as `Authorization: Bearer`. */
  firestoreREST() {
    requireEmulator(this.emulators, 'firestore');
    return new FirestoreREST(baseURL(this.emulators.firestore), this.projectId, this.token);
  }

  async cleanup() {
    const app = this.#app;
    this.#app = this.#database = this.#firestore = undefined;
    if (app) await (await sdk()).app.deleteApp(app);
  }

  async #getApp() {
    if (!this.#app) {
      const { app } = await sdk();
      this.#app = app.initializeApp({ projectId: this.projectId },
        `_Firebase_RulesUnitTesting_${Date.now()}_${Math.random()}`);
    }
    return this.#app;
  }
}

/**
 * The library's withFunctionTriggersDisabled: `PUT /functions/disableBackgroundTriggers` on the
 * hub, `fn`, then `PUT /functions/enableBackgroundTriggers`; a non-2xx answer throws.
 */
export async function withFunctionTriggersDisabled(hub, fn) {
  const switchTriggers = async (action) => {
    const response = await fetch(`${baseURL(hub)}/functions/${action}BackgroundTriggers`, { method: 'PUT' });
    await response.arrayBuffer();
    if (!response.ok) {
      throw new Error(`HTTP Error ${response.status} when ${action === 'disable' ? 'disabling' : 'enabling'} functions triggers, are you using firebase-tools 8.13.0 or higher?`);
    }
  };
  await switchTriggers('disable');
  try {
    return await fn();
  } finally {
    await switchTriggers('enable');
  }
}

/** Resolves with the rejection when `promise` fails with permission denied; rejects otherwise. */
export async function assertFails(promise) {
  let error;
  try {
    await promise;
  } catch (caught) {
    error = caught;
  }
  if (error === undefined) throw new Error('Expected request to fail, but it succeeded.');
  const code = String(error?.code ?? '').toLowerCase();
  const message = String(error?.message ?? '').toLowerCase();
  const denied = code === 'permission-denied' || code === 'permission_denied'
    || message.includes('permission_denied') || message.includes('permission denied')
    || message.includes('unauthorized');
  if (!denied) throw new Error(`Expected PERMISSION_DENIED but got unexpected error: ${error}`);
  return error;
}

/** The promise itself: marks a request the rules must allow. */
export function assertSucceeds(promise) {
  return promise;
}
