// `node --import ./register.mjs`: installs the gstatic resolve hook and the browser globals the
// SDK's browser build needs in Node (XMLHttpRequest from Debian's node-xmlhttprequest).
import { register, createRequire } from 'node:module';

register('./gstatic-hooks.mjs', import.meta.url);

const require = createRequire(import.meta.url);
const { XMLHttpRequest } = require(process.env.XHR_MODULE || '/usr/share/nodejs/xmlhttprequest');
globalThis.XMLHttpRequest = XMLHttpRequest;
