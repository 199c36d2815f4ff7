import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import type { FxTarget } from '../../shared/fx/target';
import { get } from './get';
import { getMany } from './getMany';
import { getOpen } from './getOpen';

export type FxReportOperation = (
	ctx: IExecuteFunctions,
	itemIndex: number,
	target: FxTarget,
) => Promise<INodeExecutionData[]>;

export const reportOperations: Record<string, FxReportOperation> = { get, getMany, getOpen };
