// The suite (test/suites/auth-matrix.ts) against npm start's default topology: all in one process.
import { authMatrixSuite } from './suites/auth-matrix.js';

authMatrixSuite('all-in-one');
