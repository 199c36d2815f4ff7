/**
 * The shape every credential that keeps key material shares (the File Service's enrolment, the
 * EBICS subscriber): the two hidden fields of its KeyFields (the expirable check field n8n runs
 * preAuthentication for while it is empty, and the encrypted state), and the preAuthentication
 * that runs the protocol's key step with a key-service sender over n8n's HTTP helper.
 */
import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	IHttpRequestHelper,
	INodeProperties,
} from 'n8n-workflow';

import type { KeyServiceSender } from './sender';
import { keyServiceSender } from './sender';
import type { KeyFields } from './state';

/**
 * The hidden check and state fields of `fields`, with the names the credential shows for them.
 *
 * `checkInForm`: the check field (a time, no secret) goes to the editor's credential dialog and
 * comes back with its Save, as the status field does. n8n's dialog does not reload a credential
 * after its test, so a Save later in the same dialog carries the status from before that test: with
 * the check field from before it too (empty while the subscriber was not ready), n8n runs
 * preAuthentication in the test after that Save, which writes the status anew. As a password the
 * check field would keep the stored time, and a status from before the test would stay.
 */
export function keyStateProperties(
	fields: KeyFields,
	names: { check: string; state: string },
	options: { checkInForm?: boolean } = {},
): INodeProperties[] {
	return [
		{
			displayName: names.check,
			name: fields.check,
			type: 'hidden',
			typeOptions: options.checkInForm ? { expirable: true } : { expirable: true, password: true },
			default: '',
		},
		{
			displayName: names.state,
			name: fields.state,
			type: 'hidden',
			typeOptions: { password: true },
			default: '',
		},
	];
}

/** The protocol's key step: the credential fields to store, or nothing. */
export type KeyStep = (
	credentials: ICredentialDataDecryptedObject,
	send: KeyServiceSender,
) => Promise<IDataObject>;

/**
 * A credential type's preAuthentication: runs `step` with the key services reached through
 * n8n's own HTTP helper (the proxy and TLS settings of the instance apply); n8n stores what it
 * returns, encrypted, in the credential.
 */
export function keyServicePreAuthentication(
	step: KeyStep,
): (this: IHttpRequestHelper, credentials: ICredentialDataDecryptedObject) => Promise<IDataObject> {
	return async function (this: IHttpRequestHelper, credentials: ICredentialDataDecryptedObject) {
		const helpers = this.helpers;
		return await step(
			credentials,
			keyServiceSender(async (options) => await helpers.httpRequest(options)),
		);
	};
}
