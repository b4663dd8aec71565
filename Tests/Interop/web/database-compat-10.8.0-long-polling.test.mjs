// The compat 10.8.0 bundles over long-polling (see database-compat-long-polling.test.mjs).
import './long-poll-dom.mjs';
import { compat, databaseSuite, logLines } from './database-suite.mjs';

const api = compat('10.8.0');
api.forceLongPolling();
databaseSuite(api, 'long-polling', logLines(api));
