// The Realtime Database cases with the compat API over long-polling
// (firebase.database.INTERNAL.forceLongPolling(), 10.12.2).
import './long-poll-dom.mjs';
import { compat, databaseSuite, logLines } from './database-suite.mjs';

const api = compat('10.12.2');
api.forceLongPolling();
databaseSuite(api, 'long-polling', logLines(api));
