import { compatSuite } from './compat-suite.mjs';

compatSuite('10.12.2');
