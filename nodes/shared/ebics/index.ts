/**
 * EBICS 3.0 (H005): the protocol library. It never imports another protocol folder (bxd); the
 * credential and the node build on it. What they call:
 *
 * Keys (keys.ts, digests.ts, letters.ts)
 * - `generateSubscriberKeys({ subject, bits })`: the three key pairs (A006, X002, E002), RSA 2048+
 *   with self-signed X.509 certificates, as `EbicsSubscriberKeys` (PEM) to keep in the credential
 *   inside `EbicsKeyMaterial` (its shape is documented in keys.ts).
 * - `loadSubscriberKeys` / `loadBankKeys`: checks of imported keys (RSA, length, pairs, three
 *   distinct keys), each failure an EbicsKeyError naming the key.
 * - `initialisationLetters(party, certificates)`: the INI and HIA letters as hashes (fields),
 *   HTML and PDF.
 * - `parseHash` / `formatHash`: a hash as typed from a letter / as a letter prints it.
 *
 * Client (client.ts): `new EbicsClient({ subscriber, keys, send })`, where
 * `send(xml, step) => Promise<xml>` posts to the bank's EBICS URL through the node's transport.
 * - `hev()`, `ini()`, `hia()`, `hpb(pinnedHashes)` (EbicsBankKeyError with the bank's hashes when
 *   they are not pinned or differ), `letterHashes()`
 * - `btd(service, dateRange?)` / `download(orderType, params)`: a `Download` (data, files(),
 *   acknowledge(), reject()) or undefined for 090005; the receipt is the caller's to send.
 * - `btu(service, data, signatureFlag, { fileName })` / `upload(...)`: the order ID.
 * - `htd()`, `hkd()`, `haa()` (parsed in EBICS 3.0 or 2.5, receipts sent), `hac(range?)`,
 *   `ptk(range?)` (Downloads), `spr()`; `readDownload(orderType, params, read)`: any download read
 *   before its receipt (negative when `read` throws).
 * - BTF parameters: `BtfService`, `checkService`, `SERVICE_PRESETS`.
 *
 * Errors (errors.ts): EbicsValidationError (a value, with its field: nothing was sent),
 * EbicsKeyError, EbicsReturnCodeError (code, level, spec name, meaning, action, the bank's text),
 * EbicsBankKeyError, EbicsSignatureError, EbicsFormatError, EbicsDataError. The return code table
 * is `TECHNICAL_RETURN_CODES` / `BUSINESS_RETURN_CODES` (returnCodes.ts).
 *
 * Customer protocol (protocol.ts): `readCustomerAcknowledgement` (HAC, pain.002: one entry per
 * event of an order, with its reason code and the bank's text), `readCustomerProtocol` (PTK lines).
 * `bankVersions(hostId, send)`: HEV without keys. `checkPinnedBankKeys`: the bank's keys against
 * the hashes pinned from its letter.
 *
 * EBICS 2.5 (h004/): `new EbicsClient({ ..., version: 'H004', h004KeyForm })` speaks H004 to
 * banks that offer only EBICS 2.5: order types (C53, STA, CCT, FDL/FUL with a file format, ...)
 * through `download(orderType, params)` and `upload(orderType, params, data)`; keys named by the
 * hash of exponent and modulus; `H004_ORDER_TYPES` and `H004_PRESET_ORDER_TYPES` for the node.
 *
 * Lower layers, for the sandbox bank, tests and part 2 (streaming): requests.ts (one builder per
 * message), responses.ts, x002.ts, a006.ts, e002.ts, segments.ts, orderData.ts, zip.ts.
 */
export * from './a006';
export * from './btf';
export * from './client';
export * from './constants';
export * from './dialect';
export * from './digests';
export * from './e002';
export * from './errors';
export * from './h004';
export * from './keys';
export * from './letters';
export * from './hpd';
export * from './orderData';
export * from './protocol';
export * from './requests';
export * from './responses';
export * from './returnCodes';
export * from './segments';
export * from './x002';
export * from './xml';
export * from './zip';
export * from './keyChange';
export * from './veu';
