// The Realtime Database cases on a connection that starts on long-polling and upgrades to a
// WebSocket, as the SDK does in a browser after a WebSocket failed (in Node with
// long-poll-dom.mjs its storage is in memory, which it counts as such a failure).
import './long-poll-dom.mjs';
import { databaseSuite, logLines, modular } from './database-suite.mjs';

const api = await modular();
databaseSuite(api, 'upgrade', logLines(api));
