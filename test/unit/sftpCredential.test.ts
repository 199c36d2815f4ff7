/**
 * The Bank SFTP credential's fields read as typed in the editor: a port is digits only (a minus
 * sign, a letter, a decimal point or an exponent is refused naming the field, never read as
 * another port), and the Key Fingerprints its test writes name each key as gpg prints it.
 */
import * as openpgp from 'openpgp';

import {
	keyFingerprintsText,
	readSftpCredential,
	sftpPreAuthentication,
	SFTP_KEYS_FIELD,
} from '../../nodes/shared/sftp/credential/sftpCredential';
import { SftpValidationError } from '../../nodes/shared/sftp';
import { SFTP_PROFILES } from '../../nodes/shared/sftp/profiles';

const base = { host: 'sftp.bank.example', username: 'acme', authentication: 'password', password: 'secret' };

function portError(port: unknown): SftpValidationError | undefined {
	try {
		readSftpCredential({ ...base, port } as never);
		return undefined;
	} catch (error) {
		return error as SftpValidationError;
	}
}

test('a port is digits only, 1 to 65535; empty is 22; a number saved before the field was text is read', () => {
	expect(readSftpCredential({ ...base, port: '2222' }).connect.port).toBe(2222);
	expect(readSftpCredential({ ...base, port: ' 2222 ' }).connect.port).toBe(2222);
	expect(readSftpCredential({ ...base, port: 2222 }).connect.port).toBe(2222);
	expect(readSftpCredential({ ...base, port: '' }).connect.port).toBe(22);
	expect(readSftpCredential({ ...base }).connect.port).toBe(22);
	for (const typed of ['-22', '2a2', '22.0', '1e3', '0', '65536', '0x16', '+22', '2 2', 'twenty-two', -22, 22.5]) {
		const error = portError(typed);
		expect([typed, error?.field]).toEqual([typed, 'Port']);
		expect(error?.message).toBe(`"${String(typed).trim()}" is not a port: digits only, a whole number from 1 to 65535 (22 when empty)`);
	}
});

test("Key Fingerprints names the bank's keys and the customer's as gpg prints them; a key that cannot be read is named with its field", async () => {
	const make = async (name: string) => await openpgp.generateKey({ type: 'ecc', curve: 'curve25519Legacy', userIDs: [{ name }], format: 'armored' });
	const [bank, customer] = await Promise.all([make('Bank'), make('Customer')]);
	const fpr = async (armoured: string) => (await openpgp.readKey({ armoredKey: armoured })).getFingerprint().toUpperCase().replace(/(.{4})/g, '$1 ').trim();
	const values = { ...base, bankPublicKeys: bank.publicKey, pgpKeySource: 'imported', pgpPrivateKey: customer.privateKey };
	const text = await keyFingerprintsText(values);
	expect(text).toBe(`Bank: ${await fpr(bank.publicKey)} (EdDSA (ed25519), no expiry). Yours: ${await fpr(customer.publicKey)} (EdDSA (ed25519), no expiry).`);
	expect(text).not.toContain('PRIVATE');
	// preAuthentication writes it at each check (the test n8n runs), with the check field emptied.
	expect(await sftpPreAuthentication(values)).toEqual({ [SFTP_KEYS_FIELD]: text, sftpCheck: '' });
	expect(await keyFingerprintsText({ ...base })).toBe("Bank: none pasted (Bank's OpenPGP Public Keys is empty). Yours: none (Your OpenPGP Key is None).");
	const broken = await keyFingerprintsText({ ...base, bankPublicKeys: 'not a key', pgpKeySource: 'imported', pgpPrivateKey: '' });
	expect(broken).toMatch(/^Bank: Bank Public Keys .+\. Yours: Your OpenPGP Private Key is empty: paste the armoured private key\.$/);
});

test('a bank profile gives the folders its public page names; Archive Folder stays the one typed in; Custom (or none, as before profiles) the typed ones', () => {
	const typed = { ...base, outgoingFolder: 'to-bank', incomingFolder: 'from-bank', archiveFolder: 'done' };
	expect(readSftpCredential({ ...typed, bankProfile: 'danske' }).folders).toEqual({ outgoing: 'Outbox', incoming: 'Inbox', archive: 'done' });
	expect(readSftpCredential({ ...typed, bankProfile: 'bcb' }).folders).toEqual({ outgoing: '/input', incoming: '/output', archive: 'done' });
	expect(readSftpCredential({ ...typed, bankProfile: 'custom' }).folders).toEqual({ outgoing: 'to-bank', incoming: 'from-bank', archive: 'done' });
	expect(readSftpCredential(typed).folders).toEqual({ outgoing: 'to-bank', incoming: 'from-bank', archive: 'done' });
	for (const profile of Object.values(SFTP_PROFILES)) expect(profile.source.url).toMatch(/^https:\/\//);
});
