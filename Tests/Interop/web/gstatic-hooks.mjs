// Module resolve hook: the Firebase ESM bundles import their siblings from
// https://www.gstatic.com/firebasejs/<version>/<file>; map those URLs to the vendored copies in
// $FIREBASE_JS_SDK_DIR/<version>/<file> so nothing is fetched.
import { pathToFileURL } from 'node:url';
import path from 'node:path';

const gstatic = /^https:\/\/www\.gstatic\.com\/firebasejs\/([0-9.]+)\/([A-Za-z0-9-]+\.js)$/;

export async function resolve(specifier, context, nextResolve) {
  const match = gstatic.exec(specifier);
  if (match) {
    const file = path.join(process.env.FIREBASE_JS_SDK_DIR, match[1], match[2]);
    return { url: pathToFileURL(file).href, format: 'module', shortCircuit: true };
  }
  return nextResolve(specifier, context);
}
