/**
 * Host-to-host SFTP bank profiles: the folders a bank publishes for files to it and from it, as
 * data, each with the public page that names them. Only banks whose own public pages name their
 * folders are here; every other bank is Custom (each folder typed in, as the bank's onboarding
 * gives it). docs/sftp.md lists the sources and what was searched without finding any.
 */

export type SftpProfileId = 'custom' | 'danske' | 'bcb';

export interface SftpProfile {
	id: SftpProfileId;
	name: string;
	/** Where files to the bank are put (payments). */
	outgoing: string;
	/** Where the bank puts its files (statements, acknowledgements). */
	incoming: string;
	/**
	 * Undefined: the bank names no folder for files taken from the incoming one; the credential's
	 * Archive Folder is used (or the trigger deletes them).
	 */
	archive?: string;
	/** The public page that names the folders, and what it says of them. */
	source: { url: string; says: string };
}

export const SFTP_PROFILES: Record<Exclude<SftpProfileId, 'custom'>, SftpProfile> = {
	danske: {
		id: 'danske',
		name: 'Danske Bank',
		outgoing: 'Outbox',
		incoming: 'Inbox',
		source: {
			url: 'https://danskeci.com/ci/transaction-banking/instructions/integration-services/channels-and-security/sftp',
			says: 'Standard folders are Inbox and Outbox; temporary file extensions during uploads to Outbox; retrieval and deletion of files from Inbox',
		},
	},
	bcb: {
		id: 'bcb',
		name: 'Bermuda Commercial Bank (Bulk Payments)',
		outgoing: '/input',
		incoming: '/output',
		source: {
			url: 'https://developers.bcb.bm/guides/bulk-payments-sftp',
			says: "/input: the client drops pain.001 files here; /output: pain.002 and end-of-day camt.053 are delivered here; /archive: original submitted files are archived after ingestion (the bank's, not for files taken from /output)",
		},
	},
};

/** The profile of a credential's Bank Profile value; undefined for Custom (or an unknown value). */
export function sftpProfile(id: unknown): SftpProfile | undefined {
	return typeof id === 'string' && id in SFTP_PROFILES
		? SFTP_PROFILES[id as Exclude<SftpProfileId, 'custom'>]
		: undefined;
}
