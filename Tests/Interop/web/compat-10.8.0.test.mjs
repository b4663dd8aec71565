import { compatSuite } from './compat-suite.mjs';

compatSuite('10.8.0');
