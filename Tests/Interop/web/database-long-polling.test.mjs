// The Realtime Database cases over long-polling (/.lp): forceLongPolling(), in Node with the DOM
// the SDK's long-polling transport needs (long-poll-dom.mjs).
import './long-poll-dom.mjs';
import { databaseSuite, logLines, modular } from './database-suite.mjs';

const api = await modular();
api.forceLongPolling();
databaseSuite(api, 'long-polling', logLines(api));
