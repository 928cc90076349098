// The suite (test/suites/hostile-input.ts) against separate processes: the gateway forwards to the Minds service over TCP.
import { hostileInputSuite } from './suites/hostile-input.js';

hostileInputSuite('processes');
