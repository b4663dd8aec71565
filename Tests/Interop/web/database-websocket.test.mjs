// The Realtime Database cases over the WebSocket (/.ws), the modular SDK's transport in Node.
import { databaseSuite, logLines, modular } from './database-suite.mjs';

const api = await modular();
databaseSuite(api, 'websocket', logLines(api));
