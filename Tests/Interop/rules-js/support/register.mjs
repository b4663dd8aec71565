// Loaded with `node --import ./support/register.mjs`: installs the CDN-address resolve hook.
import { register } from 'node:module';
import { vendorDir } from './environment.mjs';

register('./gstatic-loader.mjs', import.meta.url, { data: { vendorDir } });
