// Realtime Database rules through the test library's API: every case runs through the SDK (the
// WebSocket) and through REST with the same token (Authorization: Bearer, then ?auth=), and must
// get the verdict it states and leave the data it states.
import { describe, test, before, after, beforeEach } from 'node:test';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { rulesDir, sdkMissing } from '../support/environment.mjs';
import { initializeTestEnvironment, sdk } from '../support/rules-unit-testing.mjs';
import { assert, contextFor, expectVerdict } from '../support/verdicts.mjs';

const projectId = 'demo-rules-database';
const rules = readFileSync(path.join(rulesDir, 'database/database.rules.json'), 'utf8');

const alice = {
  uid: 'alice',
  claims: { role: 'editor', level: 3, score: 2.5, admin: true, nothing: null, org: { id: 'acme', seats: 5 }, groups: ['a', 'b'] },
};
const bob = { uid: 'bob', claims: { role: 'viewer', level: 1, score: 2, admin: false, org: { id: 'other', seats: 5 } } };
const carol = { uid: 'carol' };

const seed = {
  claims: { string: 's', integer: 'i', float: 'f', boolean: 'b', null: 'n', object: 'o', array: 'a', shape: 'ok' },
  profiles: { alice: { name: 'Alice', age: 30 }, bob: { name: 'Bob' } },
  counters: { visits: 5 },
  posts: { p1: { owner: 'alice', title: 'one' }, p2: { owner: 'bob', title: 'two' }, p3: { owner: 'alice', title: 'three' } },
  rooms: { r1: { members: { alice: 'writer', bob: 'reader' }, messages: { m1: { from: 'alice', text: 'hi' } } } },
  locked: { x: 1 },
};

const ownQuery = { orderByChild: 'owner', equalTo: 'alice', limitToFirst: 5 };

// [name, as, operation, allow, expectation]: operation is [kind, path, argument]; expectation is
// the value read back (get) or { path: value } read as owner afterwards.
const cases = [
  ['string claim matches', alice, ['get', 'claims/string'], true, 's'],
  ['string claim differs', bob, ['get', 'claims/string'], false],
  ['integer claim matches', alice, ['get', 'claims/integer'], true, 'i'],
  ['integer claim differs', bob, ['get', 'claims/integer'], false],
  ['float claim matches', alice, ['get', 'claims/float'], true, 'f'],
  ['float claim differs', bob, ['get', 'claims/float'], false],
  ['boolean claim true', alice, ['get', 'claims/boolean'], true, 'b'],
  ['boolean claim false', bob, ['get', 'claims/boolean'], false],
  ['null claim', alice, ['get', 'claims/null'], true, 'n'],
  ['null claim needs a token', undefined, ['get', 'claims/null'], false],
  ['object claim members', alice, ['get', 'claims/object'], true, 'o'],
  ['object claim differs', bob, ['get', 'claims/object'], false],
  ['array claim present', alice, ['get', 'claims/array'], true, 'a'],
  ['array claim absent', bob, ['get', 'claims/array'], false],
  ["the library's token shape (sub, user_id, iat 0, exp 3600, iss, aud, firebase)", alice, ['get', 'claims/shape'], true, 'ok'],
  ['signed out: no auth', undefined, ['get', 'claims/string'], false],

  ['wildcard: read any profile when signed in', alice, ['get', 'profiles/bob'], true, { name: 'Bob' }],
  ['wildcard: signed out reads no profile', undefined, ['get', 'profiles/bob'], false],
  ['wildcard: write own profile', alice, ['set', 'profiles/alice', { name: 'Al', age: 31 }], true, { 'profiles/alice': { name: 'Al', age: 31 } }],
  ["wildcard: write another's profile", alice, ['set', 'profiles/bob', { name: 'Mallory' }], false, { 'profiles/bob': { name: 'Bob' } }],
  ['.validate: name too long', alice, ['set', 'profiles/alice', { name: 'x'.repeat(21) }], false, { 'profiles/alice': seed.profiles.alice }],
  ['.validate: $other child refused', alice, ['set', 'profiles/alice', { name: 'Al', admin: true }], false, { 'profiles/alice': seed.profiles.alice }],
  ['.validate: hasChildren name', alice, ['set', 'profiles/alice', { age: 3 }], false, { 'profiles/alice': seed.profiles.alice }],
  ['.validate: negative age', alice, ['update', 'profiles/alice', { age: -1 }], false, { 'profiles/alice': seed.profiles.alice }],
  ['.validate: update keeps the rest valid', alice, ['update', 'profiles/alice', { age: 40 }], true, { 'profiles/alice': { name: 'Alice', age: 40 } }],

  ['data/newData: counter up by one', undefined, ['set', 'counters/visits', 6], true, { 'counters/visits': 6 }],
  ['data/newData: counter up by two', undefined, ['set', 'counters/visits', 7], false, { 'counters/visits': 5 }],
  ['data/newData: new counter at 0', undefined, ['set', 'counters/fresh', 0], true, { 'counters/fresh': 0 }],
  ['data/newData: new counter at 1', undefined, ['set', 'counters/fresh', 1], false, { 'counters/fresh': null }],
  ['data/newData: removing a counter', undefined, ['remove', 'counters/visits'], false, { 'counters/visits': 5 }],

  ['query: own posts, limitToFirst 5', alice, ['get', 'posts', ownQuery], true, { p1: seed.posts.p1, p3: seed.posts.p3 }],
  ['query: limitToFirst 20 is over the rule', alice, ['get', 'posts', { ...ownQuery, limitToFirst: 20 }], false],
  ["query: someone else's posts", alice, ['get', 'posts', { ...ownQuery, equalTo: 'bob' }], false],
  ['query: no query at all', alice, ['get', 'posts'], false],
  ['query: signed out', undefined, ['get', 'posts', ownQuery], false],
  ['data: create own post', alice, ['set', 'posts/p4', { owner: 'alice', title: 'four' }], true, { 'posts/p4': { owner: 'alice', title: 'four' } }],
  ['newData: create a post for someone else', alice, ['set', 'posts/p4', { owner: 'bob', title: 'four' }], false, { 'posts/p4': null }],
  ["data: edit someone else's post", bob, ['set', 'posts/p1', { owner: 'bob', title: 'mine' }], false, { 'posts/p1': seed.posts.p1 }],

  ['lookup: a writer member posts', alice, ['set', 'rooms/r1/messages/m2', { from: 'alice', text: 'yo' }], true, { 'rooms/r1/messages/m2': { from: 'alice', text: 'yo' } }],
  ['lookup: a reader member may not post', bob, ['set', 'rooms/r1/messages/m2', { from: 'bob', text: 'yo' }], false, { 'rooms/r1/messages/m2': null }],
  ['lookup: a member reads messages', bob, ['get', 'rooms/r1/messages'], true, seed.rooms.r1.messages],
  ['lookup: a stranger reads no messages', carol, ['get', 'rooms/r1/messages'], false],
  ['lookup + .validate with auth: from must be the sender', alice, ['set', 'rooms/r1/messages/m2', { from: 'bob', text: 'yo' }], false, { 'rooms/r1/messages/m2': null }],

  ['multi-path update: every path allowed', alice, ['update', '', { 'profiles/alice/name': 'Ally', 'counters/visits': 6 }], true,
    { 'profiles/alice/name': 'Ally', 'counters/visits': 6 }],
  ['multi-path update: one path denied, none written', alice, ['update', '', { 'profiles/alice/name': 'Ally', 'locked/x': 2 }], false,
    { 'profiles/alice/name': 'Alice', 'locked/x': 1 }],
  ['multi-path update: one path invalid, none written', alice, ['update', '', { 'profiles/alice/name': 'Ally', 'profiles/alice/age': -5 }], false,
    { 'profiles/alice': seed.profiles.alice }],
  ['multi-path update: one counter skips, none written', undefined, ['update', 'counters', { visits: 6, other: 3 }], false,
    { counters: seed.counters }],
];

let env;

before(async () => {
  env = await initializeTestEnvironment({ projectId, database: { rules } });
});

after(async () => {
  await env?.cleanup();
});

async function owner(callback) {
  return env.withSecurityRulesDisabled((context) => callback(context.databaseREST()));
}

beforeEach(async () => {
  await owner((rest) => rest.set('', seed));
});

async function checkAfter(expectation) {
  await owner(async (rest) => {
    for (const [where, value] of Object.entries(expectation)) {
      assert.deepEqual(await rest.get(where), value, `${where} afterwards`);
    }
  });
}

async function viaSDK(context, [kind, where, argument]) {
  const { database } = await sdk();
  const db = await context.database();
  const at = where ? database.ref(db, where) : database.ref(db);
  switch (kind) {
    case 'get': {
      const constraints = [];
      if (argument?.orderByChild) constraints.push(database.orderByChild(argument.orderByChild));
      if (argument?.equalTo !== undefined) constraints.push(database.equalTo(argument.equalTo));
      if (argument?.limitToFirst !== undefined) constraints.push(database.limitToFirst(argument.limitToFirst));
      return (await database.get(constraints.length ? database.query(at, ...constraints) : at)).val();
    }
    case 'set': return database.set(at, argument);
    case 'update': return database.update(at, argument);
    case 'remove': return database.remove(at);
  }
}

async function viaREST(rest, [kind, where, argument]) {
  switch (kind) {
    case 'get': return rest.get(where, argument);
    case 'set': return rest.set(where, argument);
    case 'update': return rest.update(where, argument);
    case 'remove': return rest.remove(where);
  }
}

const transports = [
  ['SDK (WebSocket)', viaSDK, sdkMissing],
  ['REST, Authorization: Bearer', (context, operation) => viaREST(context.databaseREST('bearer'), operation)],
  ['REST, ?auth=', (context, operation) => viaREST(context.databaseREST('query'), operation)],
];

for (const [transport, run, skip] of transports) {
  describe(`database rules via ${transport}`, { skip }, () => {
    for (const [name, as, operation, allow, expectation] of cases) {
      test(name, async () => {
        const context = contextFor(env, as);
        try {
          const result = await expectVerdict(allow, () => run(context, operation), `${transport} ${operation[0]} /${operation[1]}`);
          if (operation[0] === 'get' && allow && expectation !== undefined) {
            assert.deepEqual(result, expectation);
          }
          if (!allow && transport.startsWith('REST')) {
            assert.equal(result.status, 401);
            assert.deepEqual(result.body, { error: 'Permission denied' });
          }
          if (!allow && transport.startsWith('SDK')) {
            // A refused `g` (get) rejects with the server's reason; a refused write with
            // code PERMISSION_DENIED and "PERMISSION_DENIED: <reason>".
            if (operation[0] === 'get') {
              assert.equal(result.message, 'Permission denied');
            } else {
              assert.equal(result.code, 'PERMISSION_DENIED');
              assert.equal(result.message, 'PERMISSION_DENIED: Permission denied');
            }
          }
          if (operation[0] !== 'get' && expectation !== undefined) await checkAfter(expectation);
        } finally {
          await context.cleanup();
        }
      });
    }
  });
}
