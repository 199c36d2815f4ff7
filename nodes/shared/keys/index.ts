/**
 * Key management every protocol shares (bxd enrolment from a PIN, Danske Bank's PKI, EBICS):
 * key pairs made inside n8n (generate.ts) or pasted by the user (imported.ts), kept encrypted in
 * the credential and written through its preAuthentication hook (state.ts), one-time codes spent
 * only when the bank got them (oneTimeCode.ts), the key services called over n8n's HTTP helper
 * (sender.ts), and what the bank sends checked against the pinned root (certificates.ts). Nothing
 * here knows a protocol's messages; the protocols' own enrolment code builds on these pieces.
 */
export * from './certificates';
export * from './credential';
export * from './generate';
export * from './imported';
export * from './oneTimeCode';
export * from './rsaPkcs1';
export * from './sender';
export * from './state';
