// The suite (test/suites/auth-matrix.ts) against separate processes: the gateway forwards to the Minds service over TCP.
import { authMatrixSuite } from './suites/auth-matrix.js';

authMatrixSuite('processes');
