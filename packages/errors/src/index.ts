// Public surface of @feedpipe/errors: the base of every package's error class. A leaf.

export { CodedError, type CodedErrorOptions } from './coded-error.js';
