import { endpoints } from '../support/endpoints.js';
import { fuzzEndpoints } from './fuzz-endpoints.js';

/** The fuzz test (fuzz-endpoints.ts) over the odd entries of the endpoint table; fuzz-first-half.test.ts takes the even ones. */
fuzzEndpoints(endpoints.filter((_, i) => i % 2 === 1));
