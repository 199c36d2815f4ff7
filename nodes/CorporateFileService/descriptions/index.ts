import type { INodeProperties } from 'n8n-workflow';

import { modeProperty, operationProperty, optionsProperty, rawProperties } from './common';
import { deleteProperties } from './delete';
import { downloadProperties } from './download';
import { listProperties } from './list';
import { uploadProperties } from './upload';

export const fileServiceProperties: INodeProperties[] = [
	operationProperty,
	modeProperty,
	...rawProperties,
	...uploadProperties,
	...listProperties,
	...downloadProperties,
	...deleteProperties,
	optionsProperty,
];
