/**
 * The secrets scan: every value a user must never see again once typed into a credential (tokens
 * the bank issued, client IDs, private keys, passphrases), looked for in everything a run shows:
 * output items, error messages, descriptions and context, and every log line.
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { readEnrolmentState, readPendingEnrolment } from '../../../nodes/shared/bxd/credential/fileServiceCredential';
import type { CredentialStore, RunResult } from '../../harness/engine';
import { CREDENTIAL_IDS, FILES } from '../../helpers/nodes';
import type { SandboxBank } from '../../sandbox';

export interface Secret {
	/** What the value is, for the report (never the value itself). */
	label: string;
	value: string;
}

export interface Finding {
	label: string;
	/** Which scanned text had it. */
	where: string;
}

/** The base64 lines of a PEM's body: any one of them in a text is a leaked key. */
export function pemBodyLines(pem: string): string[] {
	const body = /-----BEGIN [^-]+-----([\s\S]*?)-----END [^-]+-----/.exec(pem)?.[1] ?? '';
	const lines = body
		.split('\n')
		.map((l) => l.trim())
		.filter((l) => /^[A-Za-z0-9+/=]{40,}$/.test(l));
	return lines;
}

export class SecretRegistry {
	private readonly values = new Map<string, string>();

	add(label: string, value: unknown): void {
		if (typeof value !== 'string' || value.length < 6) return;
		if (!this.values.has(value)) this.values.set(value, label);
	}

	addPem(label: string, pem: string): void {
		const lines = pemBodyLines(pem);
		lines.forEach((line, i) => this.add(`${label} (line ${i + 1})`, line));
		// The body on one line, as it travels in JSON or a single-line paste.
		this.add(`${label} (body)`, lines.join(''));
	}

	/** The sandbox's identities and our keys and passphrases for it. */
	addBank(bank: SandboxBank): void {
		this.add('client ID (client credentials)', bank.clients.clientId);
		this.add('client ID (mutual TLS)', bank.clients.mtlsClientId);
		this.addPem('client private key', bank.tls.clientKeyPem);
		this.addPem('client private key, encrypted', bank.tls.clientKeyEncryptedPem);
		this.addPem('file service signing key', bank.tls.customerSigningKeyPem);
		this.addPem('other-CA client key', bank.tls.otherCaClientKeyPem);
		this.addPem('expired client key', bank.tls.expiredClientKeyPem);
		this.add('client key passphrase', bank.tls.clientKeyPassphrase);
	}

	/** Every access token the credentials of a store held: the current one and each one n8n wrote back. */
	addTokens(store: CredentialStore): string[] {
		const typeOf = new Map(store.list().map((c) => [c.id, c.type]));
		const tokens = new Map<string, string>();
		for (const entry of store.history) {
			if (typeof entry.data.accessToken === 'string') tokens.set(entry.data.accessToken, typeOf.get(entry.id) ?? 'unknown');
		}
		for (const credential of store.list()) {
			if (typeof credential.data.accessToken === 'string') tokens.set(credential.data.accessToken, credential.type);
		}
		const real = [...tokens.entries()].filter(([token]) => token.length >= 6);
		for (const [token, type] of real) this.add(`access token (${type})`, token);
		return real.map(([token]) => token);
	}

	list(): Secret[] {
		return [...this.values.entries()].map(([value, label]) => ({ label, value }));
	}

	get size(): number {
		return this.values.size;
	}

	count(labelPrefix: string): number {
		return this.list().filter((s) => s.label.startsWith(labelPrefix)).length;
	}

	scan(texts: Array<{ where: string; text: string }>): Finding[] {
		const findings: Finding[] = [];
		for (const { where, text } of texts) {
			for (const [value, label] of this.values) if (text.includes(value)) findings.push({ label, where });
		}
		return findings;
	}
}

/** Everything a run shows: items, the error's message, description and context, and every log line. */
export function shownBy(result: RunResult): Array<{ where: string; text: string }> {
	const texts: Array<{ where: string; text: string }> = [{ where: 'run data', text: JSON.stringify(result.runData) }];
	const error = result.error as (Error & { description?: string; context?: unknown }) | undefined;
	if (error) texts.push({ where: 'error', text: `${error.message}\n${error.description ?? ''}\n${JSON.stringify(error.context ?? {})}` });
	texts.push({ where: 'logs', text: result.logs.join('\n') });
	return texts;
}

/**
 * What a File Service credential enrolled from a PIN must never show: the PIN, the sandbox's
 * signing key and every private key the credential held (pasted, enrolled or kept pending, before or
 * after a run).
 */
export function enrolmentSecrets(bank: SandboxBank, store: CredentialStore, pin?: string): SecretRegistry {
	const secrets = new SecretRegistry();
	if (pin) secrets.add('PIN', pin);
	for (const entry of [...store.history.map((h) => h.data), store.get(CREDENTIAL_IDS[FILES])!.data]) {
		const state = readEnrolmentState((entry as IDataObject).enrolment);
		if (state) {
			secrets.addPem('enrolled signing key', state.privateKeyPem);
			if (state.encryption) secrets.addPem('enrolled encryption key', state.encryption.privateKeyPem);
		}
		const pending = readPendingEnrolment((entry as IDataObject).enrolment);
		if (pending) {
			secrets.addPem('pending signing key', pending.privateKeyPem);
			if (pending.encryptionKeyPem) secrets.addPem('pending encryption key', pending.encryptionKeyPem);
		}
	}
	secrets.addPem('signing key', bank.tls.customerSigningKeyPem);
	return secrets;
}

/**
 * Event items carry the SET's `aud` claim, which the bank sets to the client ID it registered for
 * you (the sandbox does exactly that). It is the bank's claim and equals the node's own Expected
 * Audience parameter, so it is not a leak; it is the one field taken out of the scan, and only
 * when it is exactly the expected audience. Everything else in the item, including `rawSet`, is
 * scanned.
 */
export function withoutExpectedAudience(items: INodeExecutionData[] | undefined, audience: string): { items: INodeExecutionData[]; excluded: number } {
	let excluded = 0;
	const out = (items ?? []).map((item) => {
		const aud: unknown = item.json.aud;
		if (aud !== audience && !(Array.isArray(aud) && aud.includes(audience))) return item;
		excluded++;
		return { ...item, json: { ...item.json, aud: '[expected audience]' } };
	});
	return { items: out, excluded };
}
