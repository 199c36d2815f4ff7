/**
 * How key services (certificate services, Danske Bank's PKIFactoryService, EBICS key management)
 * are called: one POST over n8n's HTTP helper, the answer's bytes whatever its status, and a
 * request that gets no answer told apart by whether it may have reached the bank.
 */
import type { IHttpRequestOptions, IN8nHttpFullResponse } from 'n8n-workflow';

import { attemptAsync } from '../common/attempt';
import { describeConnectionFailure, outcomeUnknown } from '../transport/errors';
import type { ClientTlsOptions } from '../transport/tls';

/** Sends one message to a key service and returns the answer's status and body (faults included). */
export type KeyServiceSender = (request: {
	url: string;
	body: Buffer;
	headers: Record<string, string>;
	tls?: ClientTlsOptions;
}) => Promise<{ status: number; body: Buffer | string }>;

/**
 * A request to a key service that got no answer. `delivered` says whether it may have reached the
 * bank: false when the connection failed before anything was sent (refused, unknown host, TLS
 * handshake), 'unknown' when it broke after the request went out. `reason` is worded so that n8n
 * shows it as written.
 */
export class KeyServiceUnreachable extends Error {
	constructor(
		readonly reason: string,
		readonly delivered: false | 'unknown',
	) {
		super(reason);
		this.name = 'KeyServiceUnreachable';
	}
}

/**
 * The sender over n8n's HTTP helper (a node's or a credential's): one POST, no redirects, the
 * answer's bytes whatever its status. A request that gets no answer throws KeyServiceUnreachable.
 */
export function keyServiceSender(
	httpRequest: (options: IHttpRequestOptions) => Promise<unknown>,
): KeyServiceSender {
	return async ({ url, body, headers, tls }) => {
		const sent = await attemptAsync(
			async () =>
				(await httpRequest({
					method: 'POST',
					url,
					body,
					headers,
					json: false,
					encoding: 'arraybuffer',
					returnFullResponse: true,
					ignoreHttpStatusErrors: true,
					disableFollowRedirect: true,
					timeout: 60000,
					...(tls ? { agentOptions: tls } : {}),
				})) as IN8nHttpFullResponse,
		);
		if (!sent.ok) {
			throw new KeyServiceUnreachable(
				describeConnectionFailure(sent.error),
				outcomeUnknown(sent.error) ? 'unknown' : false,
			);
		}
		const raw = sent.value.body as unknown;
		return {
			status: sent.value.statusCode,
			body: Buffer.isBuffer(raw)
				? raw
				: raw instanceof ArrayBuffer
					? Buffer.from(raw)
					: String(raw ?? ''),
		};
	};
}
