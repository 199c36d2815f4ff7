export * from './base64';
export * from './errors';
export * from './redact';
export * from './request';
export * from './retry';
export * from './tls';
export * from './token';
export * from './xml';
