/** The Bank SFTP credential and node in tests: against the real sshd, with keys made by gpg. */
import type { ICredentialDataDecryptedObject, IDataObject, INodeExecutionData } from 'n8n-workflow';

import { SFTP_UPLOAD_JOURNAL_FIELD, readSftpJournal, type SftpJournalEntry } from '../../nodes/shared/sftp/journal/uploadJournal';
import { createCredentialStore, type CredentialStore, type RunResult } from '../harness/engine';
import type { Gpg } from './gpg';
import { CREDENTIAL_IDS, runNode, SFTP } from './nodes';
import type { Sshd } from './sshd';

export const SFTP_ID = CREDENTIAL_IDS[SFTP];

/** Keys of the two sides, both made by gpg: the bank's and the customer's. */
export interface SftpKeys {
	gpg: Gpg;
	bankFp: string;
	customerFp: string;
}

export function sftpValues(sshd: Sshd, keys: SftpKeys, over: IDataObject = {}): IDataObject {
	return {
		host: sshd.host,
		port: sshd.port,
		username: sshd.username,
		authentication: 'privateKey',
		privateKey: sshd.protectedClientKey,
		passphrase: sshd.clientKeyPassphrase,
		hostKeyFingerprint: sshd.fingerprint,
		outgoingFolder: sshd.folders.outgoing,
		incomingFolder: sshd.folders.incoming,
		archiveFolder: sshd.folders.archive,
		pgpKeySource: 'imported',
		pgpPrivateKey: keys.gpg.exportSecret(keys.customerFp),
		pgpPassphrase: '',
		bankPublicKeys: keys.gpg.exportPublic(keys.bankFp),
		...over,
	};
}

export function sftpStore(values: IDataObject): CredentialStore {
	return createCredentialStore([{ id: SFTP_ID, name: 'Bank SFTP', type: SFTP, data: values as ICredentialDataDecryptedObject }]);
}

export async function runSftp(store: CredentialStore, parameters: IDataObject, inputItems?: INodeExecutionData[]): Promise<RunResult> {
	return await runNode({ type: 'bankSftp', parameters, credentials: { [SFTP]: SFTP_ID }, store, inputItems, binaryDataMode: 'filesystem' });
}

export function journalOf(store: CredentialStore): SftpJournalEntry[] {
	return readSftpJournal(store.get(SFTP_ID)!.data[SFTP_UPLOAD_JOURNAL_FIELD]);
}

export function fileItem(content: Buffer, fileName: string): INodeExecutionData[] {
	return [{ json: {}, binary: { data: { data: content.toString('base64'), mimeType: 'application/xml', fileName } } }];
}
