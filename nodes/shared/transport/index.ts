export * from './errors';
export * from './pool';
export * from './redact';
export * from './request';
export * from './retry';
export * from './tls';
export * from './token';
