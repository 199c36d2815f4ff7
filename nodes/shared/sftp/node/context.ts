/**
 * What a Bank SFTP node or trigger run needs of its credential: the checked view, the session
 * opened on demand, and the OpenPGP keys read once per run.
 */
import type {
	ICredentialDataDecryptedObject,
	IExecuteFunctions,
	IPollFunctions,
} from 'n8n-workflow';
import type * as openpgp from 'openpgp';

import { SftpSession } from '../index';
import type { SftpCredential } from '../credential/sftpCredential';
import {
	bankKeysOf,
	customerKeyOf,
	readSftpCredential,
	SFTP_CREDENTIAL,
} from '../credential/sftpCredential';

export type SftpContext = IExecuteFunctions | IPollFunctions;

export class SftpRun {
	private session?: SftpSession;
	private bank?: Promise<openpgp.PublicKey[]>;
	private customer?: Promise<openpgp.PrivateKey>;

	constructor(
		readonly credentials: ICredentialDataDecryptedObject,
		readonly view: SftpCredential,
	) {}

	/** The session of this run, opened at the first call. */
	async connect(): Promise<SftpSession> {
		this.session ??= await SftpSession.open(this.view.connect);
		return this.session;
	}

	async bankKeys(): Promise<openpgp.PublicKey[]> {
		this.bank ??= bankKeysOf(this.credentials);
		return await this.bank;
	}

	async customerKey(): Promise<openpgp.PrivateKey> {
		this.customer ??= customerKeyOf(this.credentials);
		return await this.customer;
	}

	close(): void {
		this.session?.close();
		this.session = undefined;
	}
}

/** Reads the credential (fields checked, nothing sent yet). */
export async function loadSftpRun(ctx: SftpContext): Promise<SftpRun> {
	const credentials = await ctx.getCredentials(SFTP_CREDENTIAL);
	return new SftpRun(credentials, readSftpCredential(credentials));
}
