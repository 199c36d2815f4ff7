import type { INodeProperties } from 'n8n-workflow';

import { fileReferenceProperties } from './common';

export const deleteProperties: INodeProperties[] = fileReferenceProperties(
	'deleteFile',
	"The bank's reference of the file to delete",
);
