import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import type { ServiceContext } from '../fileService';
import { exchange, readOptions } from './common';

/** Get User Info: one item per file type the user may send or fetch. */
export async function getUserInfo(
	ctx: IExecuteFunctions,
	itemIndex: number,
	service: ServiceContext,
): Promise<INodeExecutionData[]> {
	const options = readOptions(ctx, itemIndex);
	const result = await exchange(ctx, itemIndex, service, 'getUserInfo', {}, options);
	if (result.noData) return [];
	return (result.applicationResponse?.userFileTypes ?? []).map((type) => ({
		json: {
			...type,
			fileTypeServices: type.fileTypeServices.map((s) => ({ ...s })),
		} as IDataObject,
		pairedItem: { item: itemIndex },
	}));
}
