/**
 * EBICS 2.5 (H004): the requests that differ from EBICS 3.0, the reading of the bank's bare keys,
 * the client's dialect and the order types of the EBICS node. The client speaks H004 when
 * `new EbicsClient({ ..., version: 'H004' })`.
 */
export * from './dialect';
export * from './keyChange';
export * from './orderData';
export * from './orderTypes';
export * from './requests';
