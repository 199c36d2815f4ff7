import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { readOptions } from '../../shared/bxd/node/readParameters';
import { exchange } from '../../shared/bxd/node/request';
import type { FileServiceOperation } from '../../shared/bxd/node/serviceContext';

/** Get User Info has no fields of its own (only the Options). */
export const description: INodeProperties[] = [];

/** Get User Info: one item per file type the user may send or fetch. */
export const execute: FileServiceOperation = async (ctx, itemIndex, service) => {
	const options = readOptions(ctx, itemIndex);
	const result = await exchange(ctx, service, 'getUserInfo', itemIndex, {}, options);
	if (result.noData) return [];
	return (result.applicationResponse?.userFileTypes ?? []).map((type) => ({
		json: {
			...type,
			fileTypeServices: type.fileTypeServices.map((s) => ({ ...s })),
		} as IDataObject,
		pairedItem: { item: itemIndex },
	}));
};
