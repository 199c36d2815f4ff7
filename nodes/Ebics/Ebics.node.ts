import type { INodeTypeBaseDescription, IVersionedNodeType } from 'n8n-workflow';
import { VersionedNodeType } from 'n8n-workflow';

import { EbicsV1 } from './v1/EbicsV1';
import { EbicsV2 } from './v2/EbicsV2';

/**
 * The EBICS node, in two versions as n8n keeps a node's versions: version 1 (one Operation list)
 * runs the workflows saved with it unchanged; new nodes get version 2 (the operations in
 * resources, listed as actions in the node panel).
 */
export class Ebics extends VersionedNodeType {
	constructor() {
		const baseDescription: INodeTypeBaseDescription = {
			displayName: 'EBICS',
			name: 'ebics',
			icon: { light: 'file:../../icons/ebics.svg', dark: 'file:../../icons/ebics.dark.svg' },
			group: ['transform'],
			description:
				'Download statements and upload payment files over EBICS 3.0 (H005) or 2.5 (H004): initialisation letters, BTD, BTU or EBICS 2.5 order types, the distributed signature and the administrative orders',
			defaultVersion: 2,
		};
		const nodeVersions: IVersionedNodeType['nodeVersions'] = {
			1: new EbicsV1(baseDescription),
			2: new EbicsV2(baseDescription),
		};
		super(nodeVersions, baseDescription);
	}
}
