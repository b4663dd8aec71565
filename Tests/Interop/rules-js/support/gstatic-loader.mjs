// Module resolve hook: the vendored SDK's ESM bundles import each other by their CDN address
// (https://www.gstatic.com/firebasejs/<version>/<file>.js). This maps those addresses onto the
// unmodified files in FIREBASE_JS_SDK_DIR (default ../shared/vendor/firebase-js-sdk), so nothing
// is fetched from the network and nothing is copied into the project.
import { pathToFileURL } from 'node:url';
import path from 'node:path';

const cdn = /^https:\/\/www\.gstatic\.com\/firebasejs\/([0-9.]+)\/([a-z-]+\.js)$/;
let vendorDir = process.env.FIREBASE_JS_SDK_DIR ?? '';

export function initialize(data) {
  if (data?.vendorDir) vendorDir = data.vendorDir;
}

export async function resolve(specifier, context, nextResolve) {
  const match = cdn.exec(specifier);
  if (match) {
    const file = path.join(vendorDir, match[1], match[2]);
    return { url: pathToFileURL(file).href, format: 'module', shortCircuit: true };
  }
  return nextResolve(specifier, context);
}
