// The suite (test/suites/hostile-input.ts) against npm start's default topology: all in one process.
import { hostileInputSuite } from './suites/hostile-input.js';

hostileInputSuite('all-in-one');
