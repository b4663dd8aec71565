// Where things are: the vendored SDK, the running suite (from the variables the interop run
// script and `emulators exec` set) and whether Firestore's WebChannel is served.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const projectRoot = path.resolve(here, '../../../..');

/** The SDK version whose bundles the cases load. */
export const sdkVersion = '10.12.2';

/** `FIREBASE_JS_SDK_DIR`, else `../shared/vendor/firebase-js-sdk` next to the project. */
export const vendorDir = process.env.FIREBASE_JS_SDK_DIR
  || path.resolve(projectRoot, '../shared/vendor/firebase-js-sdk');

/** Why the SDK cannot be loaded, or undefined when it can. */
export const sdkMissing = existsSync(path.join(vendorDir, sdkVersion, 'firebase-database.js'))
  ? undefined
  : `the vendored Firebase JS SDK is not at ${vendorDir} (set FIREBASE_JS_SDK_DIR or add ../shared)`;

/** `host:port` of a variable as the official tools spell it, or undefined. */
export function hostAndPort(variable) {
  const value = process.env[variable];
  if (!value) return undefined;
  const url = new URL(`http://${value}`);
  return { host: url.hostname, port: Number(url.port || '80') };
}

/** The directory this suite's rules files live in. */
export const rulesDir = path.resolve(here, '..');

/**
 * Whether the Firestore port serves the WebChannel Listen stream the JS SDK needs: a channel
 * open that the server does not route answers 404 (or 501 while unimplemented).
 */
export async function webChannelServed(firestore, projectId) {
  const database = encodeURIComponent(`projects/${projectId}/databases/(default)`);
  const url = `http://${firestore.host}:${firestore.port}/google.firestore.v1.Firestore/Listen/channel`
    + `?database=${database}&VER=8&RID=1&CVER=22&X-HTTP-Session-Id=gsessionid&zx=probe&t=1`;
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'count=0',
      signal: AbortSignal.timeout(5000),
    });
    await response.arrayBuffer().catch(() => undefined);
    return response.status !== 404 && response.status !== 501;
  } catch {
    return false;
  }
}

/** Why Firestore cases cannot run through the SDK here, or undefined when they can. */
export async function firestoreSDKMissing(firestore, projectId) {
  if (sdkMissing) return sdkMissing;
  if (!firestore) return 'no Firestore emulator found';
  return (await webChannelServed(firestore, projectId))
    ? undefined
    : 'the Firestore port does not serve WebChannel (/google.firestore.v1.Firestore/Listen/channel), which the JS SDK needs';
}
