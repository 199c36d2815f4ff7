import type { INodeTypeBaseDescription, IVersionedNodeType } from 'n8n-workflow';
import { VersionedNodeType } from 'n8n-workflow';

import { CorporateFileServiceV1 } from './v1/CorporateFileServiceV1';
import { CorporateFileServiceV2 } from './v2/CorporateFileServiceV2';

/**
 * The Corporate File Service node, in two versions as n8n keeps a node's versions: version 1 (one
 * Operation list) runs the workflows saved with it unchanged; new nodes get version 2 (the
 * operations in resources, listed as actions in the node panel).
 */
export class CorporateFileService extends VersionedNodeType {
	constructor() {
		const baseDescription: INodeTypeBaseDescription = {
			displayName: 'Corporate File Service',
			name: 'corporateFileService',
			icon: {
				light: 'file:../../icons/file-service.svg',
				dark: 'file:../../icons/file-service.dark.svg',
			},
			group: ['transform'],
			description:
				"Upload, list, download and delete files with the bank's SOAP file service (bxd Web Services)",
			defaultVersion: 2,
		};
		const nodeVersions: IVersionedNodeType['nodeVersions'] = {
			1: new CorporateFileServiceV1(baseDescription),
			2: new CorporateFileServiceV2(baseDescription),
		};
		super(nodeVersions, baseDescription);
	}
}
