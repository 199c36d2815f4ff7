import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';

import { keyInfo, spacedFingerprint, type KeyInfo } from '../../shared/sftp';
import type { SftpRun } from '../../shared/sftp/node/context';

const show = { show: { resource: ['openpgp'], operation: ['keyInformation'] } };

export const description: INodeProperties[] = [
	{
		displayName:
			"Shows your OpenPGP public key (to send to the bank) and the fingerprints of your key and the bank's keys, to compare with what the bank gave you. No private key is shown.",
		name: 'keyInformationNotice',
		type: 'notice',
		default: '',
		displayOptions: show,
	},
];

const shown = (info: KeyInfo): IDataObject => ({
	fingerprint: spacedFingerprint(info.fingerprint),
	keyIds: info.keyIds,
	userIds: info.userIds,
	algorithm: info.algorithm,
	created: info.created,
	expires: info.expires,
	revoked: info.revoked,
});

export async function execute(
	this: IExecuteFunctions,
	run: SftpRun,
	itemIndex: number,
): Promise<INodeExecutionData[]> {
	const json: IDataObject = {
		host: `${run.view.connect.host}:${run.view.connect.port}`,
		pinnedHostKeys: run.view.connect.pinnedFingerprints ?? [],
	};
	if (run.view.keySource !== 'none') {
		const key = await run.customerKey();
		json.yourKey = { ...shown(await keyInfo(key)), publicKey: key.toPublic().armor() };
	}
	json.bankKeys = run.view.bankKeysArmoured
		? await Promise.all((await run.bankKeys()).map(async (k) => shown(await keyInfo(k))))
		: [];
	return [{ json, pairedItem: { item: itemIndex } }];
}
