/**
 * Host-to-host SFTP with OpenPGP, without n8n: the connection with its pinned host key, listings,
 * streamed reads and writes, uploads under a temporary name renamed when complete, and OpenPGP
 * signing, encryption, decryption and verification as streams. The n8n side is in credential/,
 * journal/ and node/.
 */
export * from './errors';
export {
	detachedSigner,
	MAX_SIGNATURE_BYTES,
	signatureCandidates,
	signatureNameFor,
	signatureFirst,
	signDetached,
	verifyDetached,
	type DetachedForm,
	type DetachedResult,
} from './detached';
export { hostKeyFingerprint, hostKeyType, parsePinnedFingerprints } from './hostKey';
export {
	checkKeyUsable,
	generateKeyPair,
	keyInfo,
	open,
	pgpReadError,
	protect,
	readPrivateKey,
	readPublicKeys,
	spacedFingerprint,
	type CipherChoice,
	type HashChoice,
	type KeyAlgorithm,
	type KeyInfo,
	type OpenOptions,
	type OpenResult,
	type ProtectOptions,
} from './pgp';
export {
	fileError,
	joinRemote,
	SFTP_STATUS,
	SftpSession,
	withSession,
	type RemoteEntry,
	type SftpConnectOptions,
} from './session';
export {
	checkFileName,
	DEFAULT_TEMPORARY_NAME,
	isPartialName,
	temporaryNameFor,
	uploadStream,
	type UploadResult,
} from './transfer';
