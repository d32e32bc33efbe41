import { endpoints } from '../support/endpoints.js';
import { fuzzEndpoints } from './fuzz-endpoints.js';

/** The fuzz test (fuzz-endpoints.ts) over the even entries of the endpoint table; fuzz-second-half.test.ts takes the odd ones. */
fuzzEndpoints(endpoints.filter((_, i) => i % 2 === 0));
