/**
 * The sandbox EBICS bank's own keys (X002 authentication, E002 encryption, with self-signed
 * certificates) and those of its ready-made subscriber, kept in the sandbox's cert folder so
 * that restarts keep the hashes users pinned (a bank keeps its keys).
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { generateKeyWithCertificate } from '../../../nodes/shared/keys/generate';
import { generateSubscriberKeys, type EbicsSubscriberKeys } from '../../../nodes/shared/ebics';

const FILE = 'sandbox-ebics-keys.json';
const VERSION = 1;

export interface EbicsBankKeyFile {
	version: number;
	bank: {
		authentication: { privateKeyPem: string; certificatePem: string };
		encryption: { privateKeyPem: string; certificatePem: string };
	};
	/** Keys of the subscriber the sandbox initialises itself (for "imported keys" credentials). */
	readySubscriber: EbicsSubscriberKeys;
	/** Keys of the two signers of PARTNER3 (distributed signature): SIGNER1 (A) and SIGNER2 (B). */
	signers?: [EbicsSubscriberKeys, EbicsSubscriberKeys];
}

function makeSigners(): Promise<[EbicsSubscriberKeys, EbicsSubscriberKeys]> {
	return Promise.all([1, 2].map((n) => generateSubscriberKeys({ subject: { commonName: `Sandbox Signer ${n}`, organization: 'Sandbox Signers GmbH', country: 'DE' } }))) as Promise<[EbicsSubscriberKeys, EbicsSubscriberKeys]>;
}

function writeKeyFile(path: string, file: EbicsBankKeyFile): void {
	const temp = `${path}.${process.pid}.tmp`;
	writeFileSync(temp, JSON.stringify(file), { mode: 0o600 });
	renameSync(temp, path);
}

/** Reads the bank's keys from `certDir`, making and writing them the first time. */
export async function loadOrCreateEbicsKeys(certDir: string): Promise<EbicsBankKeyFile> {
	const path = join(certDir, FILE);
	if (existsSync(path)) {
		const stored = JSON.parse(readFileSync(path, 'utf8')) as EbicsBankKeyFile;
		if (stored.version === VERSION) {
			if (stored.signers) return stored;
			// A key file from before the signers: the bank's keys stay, the signers are added.
			const signers = await makeSigners();
			const again = JSON.parse(readFileSync(path, 'utf8')) as EbicsBankKeyFile;
			if (again.signers) return again;
			const file = { ...stored, signers };
			writeKeyFile(path, file);
			return file;
		}
	}
	const [authentication, encryption, readySubscriber, signers] = await Promise.all([
		generateKeyWithCertificate({ subject: { commonName: 'Sandbox Bank EBICS X002', organization: 'Sandbox Bank', country: 'DE' }, use: 'authentication', validityDays: 3650 }),
		generateKeyWithCertificate({ subject: { commonName: 'Sandbox Bank EBICS E002', organization: 'Sandbox Bank', country: 'DE' }, use: 'encryption', validityDays: 3650 }),
		generateSubscriberKeys({ subject: { commonName: 'Sandbox Ready Subscriber', organization: 'Sandbox Customer GmbH', country: 'DE' } }),
		makeSigners(),
	]);
	const file: EbicsBankKeyFile = {
		version: VERSION,
		bank: {
			authentication: { privateKeyPem: authentication.privateKeyPem, certificatePem: authentication.certificatePem },
			encryption: { privateKeyPem: encryption.privateKeyPem, certificatePem: encryption.certificatePem },
		},
		readySubscriber,
		signers,
	};
	mkdirSync(certDir, { recursive: true });
	const temp = `${path}.${process.pid}.tmp`;
	writeFileSync(temp, JSON.stringify(file), { mode: 0o600 });
	// Another process may have written it meanwhile: the first file stays, as both are valid.
	if (existsSync(path)) {
		rmSync(temp, { force: true });
		return JSON.parse(readFileSync(path, 'utf8')) as EbicsBankKeyFile;
	}
	renameSync(temp, path);
	return file;
}
