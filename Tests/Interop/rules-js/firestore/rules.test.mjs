// Firestore rules through the test library's API: every case runs through REST with the
// library's token (Authorization: Bearer) and, when the Firestore port serves the WebChannel
// Listen stream, through the JS SDK too; denials must name the rule that decided them.
import { describe, test, before, after, beforeEach } from 'node:test';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { firestoreSDKMissing, rulesDir } from '../support/environment.mjs';
import { initializeTestEnvironment, sdk } from '../support/rules-unit-testing.mjs';
import { assert, contextFor, expectVerdict } from '../support/verdicts.mjs';

const projectId = 'demo-rules-firestore';
const rules = readFileSync(path.join(rulesDir, 'firestore/firestore.rules'), 'utf8');
const ruleLines = rules.split('\n');

/** The 1-based line of the rules file that holds `text` (the line a denial names). */
function lineOf(text) {
  const index = ruleLines.findIndex((line) => line.includes(text));
  if (index < 0) throw new Error(`no rule line holds ${text}`);
  return index + 1;
}

const alice = {
  uid: 'alice',
  claims: { role: 'editor', level: 3, score: 2.5, admin: true, nothing: null, org: { id: 'acme', seats: 5 }, groups: ['a', 'b'] },
};
const bob = { uid: 'bob', claims: { role: 'viewer', level: 1, score: 2, admin: false, org: { id: 'other', seats: 5 } } };
const carol = { uid: 'carol' };

const seed = {
  'claims/string': { v: 's' }, 'claims/integer': { v: 'i' }, 'claims/float': { v: 'f' }, 'claims/boolean': { v: 'b' },
  'claims/null': { v: 'n' }, 'claims/object': { v: 'o' }, 'claims/array': { v: 'a' }, 'claims/shape': { v: 'ok' },
  'profiles/alice': { name: 'Alice', age: 30 },
  'profiles/bob': { name: 'Bob' },
  'counters/visits': { n: 5 },
  'posts/p1': { owner: 'alice', title: 'one', public: false },
  'posts/p2': { owner: 'bob', title: 'two', public: true },
  'posts/p3': { owner: 'alice', title: 'three', public: false },
  'rooms/r1': { name: 'r1' },
  'rooms/r1/members/alice': { role: 'writer' },
  'rooms/r1/members/bob': { role: 'reader' },
  'rooms/r1/messages/m1': { from: 'alice', text: 'hi' },
  'users/alice/notes/n1': { text: 'mine' },
  'locked/x': { v: 1 },
};

const ownPosts = { where: [['owner', '==', 'alice']], limit: 5 };
const profileUpdate = 'request.resource.data.name == resource.data.name';

// [name, as, operation, verdict, expectation]: verdict is true (allowed) or the method and rule
// line the denial must name ([method, line], line undefined when several rules are named);
// expectation is the value read back (get, list) or { path: data } read as owner afterwards.
const cases = [
  ['string claim matches', alice, ['get', 'claims/string'], true, { v: 's' }],
  ['string claim differs', bob, ['get', 'claims/string'], ['get']],
  ['integer claim matches', alice, ['get', 'claims/integer'], true, { v: 'i' }],
  ['integer claim differs', bob, ['get', 'claims/integer'], ['get']],
  ['float claim matches', alice, ['get', 'claims/float'], true, { v: 'f' }],
  ['float claim differs', bob, ['get', 'claims/float'], ['get']],
  ['boolean claim true', alice, ['get', 'claims/boolean'], true, { v: 'b' }],
  ['boolean claim false', bob, ['get', 'claims/boolean'], ['get']],
  ['null claim', alice, ['get', 'claims/null'], true, { v: 'n' }],
  ['null claim needs a token', undefined, ['get', 'claims/null'], ['get']],
  ['map claim members', alice, ['get', 'claims/object'], true, { v: 'o' }],
  ['map claim differs', bob, ['get', 'claims/object'], ['get']],
  ['list claim size and index', alice, ['get', 'claims/array'], true, { v: 'a' }],
  ['list claim absent', bob, ['get', 'claims/array'], ['get']],
  ["the library's token shape (sub, user_id, iat 0, exp 3600, iss, aud, firebase)", alice, ['get', 'claims/shape'], true, { v: 'ok' }],
  ['signed out: request.auth is null', undefined, ['get', 'claims/string'], ['get']],

  ['wildcard: read any profile when signed in', alice, ['get', 'profiles/bob'], true, { name: 'Bob' }],
  ['wildcard: signed out reads no profile', undefined, ['get', 'profiles/bob'], ['get', lineOf('allow read: if signedIn();')]],
  ['request.resource: create own profile', carol, ['set', 'profiles/carol', { name: 'Carol' }], true, { 'profiles/carol': { name: 'Carol' } }],
  ['request.resource: keys().hasOnly refuses a field', carol, ['set', 'profiles/carol', { name: 'Carol', admin: true }],
    ['create', lineOf('allow create: if request.auth.uid == uid')], { 'profiles/carol': undefined }],
  ['request.resource: name too long', carol, ['set', 'profiles/carol', { name: 'x'.repeat(21) }],
    ['create', lineOf('allow create: if request.auth.uid == uid')], { 'profiles/carol': undefined }],
  ["wildcard: set another's profile", alice, ['set', 'profiles/bob', { name: 'Bob' }],
    ['update', lineOf('allow update: if request.auth.uid == uid')], { 'profiles/bob': { name: 'Bob' } }],
  ['resource vs request.resource: update age', alice, ['update', 'profiles/alice', { age: 31 }], true, { 'profiles/alice': { name: 'Alice', age: 31 } }],
  ['resource vs request.resource: name is immutable', alice, ['update', 'profiles/alice', { name: 'Ally' }],
    ['update', lineOf('allow update: if request.auth.uid == uid')], { 'profiles/alice': seed['profiles/alice'] }],
  ['request.resource: negative age', alice, ['update', 'profiles/alice', { age: -1 }],
    ['update', lineOf('allow update: if request.auth.uid == uid')], { 'profiles/alice': seed['profiles/alice'] }],
  ['delete: if false', alice, ['delete', 'profiles/alice'], ['delete', lineOf('allow delete: if false;')], { 'profiles/alice': seed['profiles/alice'] }],

  ['counter up by one', undefined, ['update', 'counters/visits', { n: 6 }], true, { 'counters/visits': { n: 6 } }],
  ['counter up by two', undefined, ['update', 'counters/visits', { n: 7 }],
    ['update', lineOf('allow update: if request.resource.data.n == resource.data.n + 1;')], { 'counters/visits': { n: 5 } }],
  ['new counter at 0', undefined, ['set', 'counters/fresh', { n: 0 }], true, { 'counters/fresh': { n: 0 } }],
  ['new counter at 1', undefined, ['set', 'counters/fresh', { n: 1 }],
    ['create', lineOf('allow create: if request.resource.data.n == 0;')], { 'counters/fresh': undefined }],

  ['list: own posts, limit 5', alice, ['list', 'posts', ownPosts], true, { p1: seed['posts/p1'], p3: seed['posts/p3'] }],
  ['list: limit 20 is over the rule', alice, ['list', 'posts', { ...ownPosts, limit: 20 }], ['list', lineOf('allow list: if signedIn()')]],
  ['list: no limit', alice, ['list', 'posts', { where: ownPosts.where }], ['list', lineOf('allow list: if signedIn()')]],
  ["list: someone else's posts", alice, ['list', 'posts', { ...ownPosts, where: [['owner', '==', 'bob']] }], ['list', lineOf('allow list: if signedIn()')]],
  ['list: signed out', undefined, ['list', 'posts', ownPosts], ['list', lineOf('allow list: if signedIn()')]],
  ['get: a public post, signed out', undefined, ['get', 'posts/p2'], true, seed['posts/p2']],
  ["get: someone else's private post", bob, ['get', 'posts/p1'], ['get', lineOf('allow get: if resource.data.public == true')]],
  ['create own post', alice, ['set', 'posts/p4', { owner: 'alice', title: 'four' }], true, { 'posts/p4': { owner: 'alice', title: 'four' } }],
  ['create a post for someone else', alice, ['set', 'posts/p4', { owner: 'bob', title: 'four' }],
    ['create', lineOf('allow create: if signedIn() && request.resource.data.owner')], { 'posts/p4': undefined }],
  ["delete someone else's post", bob, ['delete', 'posts/p1'], ['delete', lineOf('allow update, delete: if signedIn()')], { 'posts/p1': seed['posts/p1'] }],
  ['delete own post', alice, ['delete', 'posts/p1'], true, { 'posts/p1': undefined }],

  ['exists(): a member reads the room', alice, ['get', 'rooms/r1'], true, seed['rooms/r1']],
  ['exists(): a stranger reads no room', carol, ['get', 'rooms/r1'], ['get', lineOf('allow read: if member(room);')]],
  ['exists(): a member lists messages', bob, ['list', 'rooms/r1/messages', {}], true, { m1: seed['rooms/r1/messages/m1'] }],
  ['get(): a writer posts', alice, ['set', 'rooms/r1/messages/m2', { from: 'alice', text: 'yo' }], true,
    { 'rooms/r1/messages/m2': { from: 'alice', text: 'yo' } }],
  ['get(): a reader may not post', bob, ['set', 'rooms/r1/messages/m2', { from: 'bob', text: 'yo' }],
    ['create', lineOf("allow create: if get(/databases")], { 'rooms/r1/messages/m2': undefined }],
  ['get(): a writer posts only as themselves', alice, ['set', 'rooms/r1/messages/m2', { from: 'bob', text: 'yo' }],
    ['create', lineOf("allow create: if get(/databases")], { 'rooms/r1/messages/m2': undefined }],

  ['recursive wildcard: own subtree', alice, ['get', 'users/alice/notes/n1'], true, { text: 'mine' }],
  ["recursive wildcard: someone else's subtree", bob, ['get', 'users/alice/notes/n1'], ['get', lineOf('allow read, write: if request.auth.uid == uid;')]],
  ['recursive wildcard: deep write', alice, ['set', 'users/alice/a/b/c/d', { deep: true }], true, { 'users/alice/a/b/c/d': { deep: true } }],

  ['batch: every write allowed', alice, ['batch', 'documents:commit', [{ update: ['profiles/alice', { age: 32 }] }, { update: ['counters/visits', { n: 6 }] }]], true,
    { 'profiles/alice': { name: 'Alice', age: 32 }, 'counters/visits': { n: 6 } }],
  ['batch: one write denied, none applied', alice, ['batch', 'documents:commit', [{ update: ['profiles/alice', { age: 32 }] }, { set: ['locked/x', { v: 2 }] }]],
    ['update', lineOf('allow read, write: if false;')], { 'profiles/alice': seed['profiles/alice'], 'locked/x': { v: 1 } }],
  ['batch: one write invalid, none applied', alice, ['batch', 'documents:commit', [{ set: ['posts/p4', { owner: 'alice' }] }, { update: ['counters/visits', { n: 7 }] }]],
    ['update', lineOf('allow update: if request.resource.data.n == resource.data.n + 1;')], { 'posts/p4': undefined, 'counters/visits': { n: 5 } }],
];

let env;

before(async () => {
  env = await initializeTestEnvironment({ projectId, firestore: { rules } });
});

after(async () => {
  await env?.cleanup();
});

beforeEach(async () => {
  await env.clearFirestore();
  await env.withSecurityRulesDisabled((context) => context.firestoreREST()
    .commit(Object.entries(seed).map(([where, data]) => ({ set: [where, data] }))));
});

async function checkAfter(expectation) {
  await env.withSecurityRulesDisabled(async (context) => {
    const rest = context.firestoreREST();
    for (const [where, data] of Object.entries(expectation)) {
      assert.deepEqual(await rest.get(where), data, `${where} afterwards`);
    }
  });
}

async function viaREST(context, [kind, where, argument]) {
  const rest = context.firestoreREST();
  switch (kind) {
    case 'get': return rest.get(where);
    case 'set': return rest.set(where, argument);
    case 'update': return rest.update(where, argument);
    case 'delete': return rest.delete(where);
    case 'list': return rest.list(where, argument);
    case 'batch': return rest.commit(argument);
  }
}

async function viaSDK(context, [kind, where, argument]) {
  const { firestore: fs } = await sdk({ firestore: true });
  const db = await context.firestore();
  switch (kind) {
    case 'get': return (await fs.getDoc(fs.doc(db, where))).data();
    case 'set': return fs.setDoc(fs.doc(db, where), argument);
    case 'update': return fs.updateDoc(fs.doc(db, where), argument);
    case 'delete': return fs.deleteDoc(fs.doc(db, where));
    case 'list': {
      const constraints = (argument.where ?? []).map(([field, op, value]) => fs.where(field, op, value));
      if (argument.limit !== undefined) constraints.push(fs.limit(argument.limit));
      const snapshot = await fs.getDocs(fs.query(fs.collection(db, where), ...constraints));
      return Object.fromEntries(snapshot.docs.map((document) => [document.id, document.data()]));
    }
    case 'batch': {
      const batch = fs.writeBatch(db);
      for (const write of argument) {
        if (write.set) batch.set(fs.doc(db, write.set[0]), write.set[1]);
        if (write.update) batch.update(fs.doc(db, write.update[0]), write.update[1]);
        if (write.delete) batch.delete(fs.doc(db, write.delete));
      }
      return batch.commit();
    }
  }
}

const discovered = (await initializeTestEnvironment({ projectId })).emulators;
const transports = [
  ['REST, Authorization: Bearer', viaREST, undefined],
  ['SDK (WebChannel)', viaSDK, await firestoreSDKMissing(discovered.firestore, projectId)],
];

for (const [transport, run, skip] of transports) {
  describe(`firestore rules via ${transport}`, { skip }, () => {
    for (const [name, as, operation, verdict, expectation] of cases) {
      test(name, async () => {
        const context = contextFor(env, as);
        const allow = verdict === true;
        try {
          const result = await expectVerdict(allow, () => run(context, operation), `${transport} ${operation[0]} ${operation[1]}`);
          if ((operation[0] === 'get' || operation[0] === 'list') && allow) {
            assert.deepEqual(result, expectation);
          }
          if (!allow) {
            const [method, line] = verdict;
            assert.equal(result.code, 'permission-denied');
            if (transport.startsWith('REST')) assert.equal(result.status, 403);
            const named = line === undefined ? `for '${method}' @ L` : `for '${method}' @ L${line}`;
            assert.ok(result.message.includes(named), `the denial names ${named}: ${result.message}`);
          }
          if (operation[0] !== 'get' && operation[0] !== 'list' && expectation !== undefined) await checkAfter(expectation);
        } finally {
          await context.cleanup();
        }
      });
    }
  });
}
