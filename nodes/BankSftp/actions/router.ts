import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { InputError } from '../../shared/common/errors';
import { runForEachItem } from '../../shared/common/runItems';
import { loadSftpRun, type SftpRun } from '../../shared/sftp/node/context';
import { sftpFailure } from '../../shared/sftp/node/failures';
import * as decryptVerify from './decryptVerify.operation';
import * as deleteFile from './delete.operation';
import * as download from './download.operation';
import * as encryptSign from './encryptSign.operation';
import * as keyInformation from './keyInformation.operation';
import * as list from './list.operation';
import * as move from './move.operation';
import * as upload from './upload.operation';

type Operation = (
	this: IExecuteFunctions,
	run: SftpRun,
	itemIndex: number,
) => Promise<INodeExecutionData[]>;

const OPERATIONS: Record<string, Operation> = {
	'file:upload': upload.execute,
	'file:list': list.execute,
	'file:download': download.execute,
	'file:move': move.execute,
	'file:delete': deleteFile.execute,
	'openpgp:encryptSign': encryptSign.execute,
	'openpgp:decryptVerify': decryptVerify.execute,
	'openpgp:keyInformation': keyInformation.execute,
};

/** Runs the operation for each item over one session of the run; failures become n8n errors. */
export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	return await runOperations(this);
}

async function runOperations(ctx: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	let run: SftpRun | undefined;
	try {
		return [
			await runForEachItem(ctx, async (itemIndex) => {
				const resource = ctx.getNodeParameter('resource', itemIndex) as string;
				const operation = ctx.getNodeParameter('operation', itemIndex) as string;
				const execute = OPERATIONS[`${resource}:${operation}`];
				if (!execute)
					throw new InputError(`The operation "${operation}" of "${resource}" is not supported`, {
						itemIndex,
					});
				try {
					const current = (run ??= await loadSftpRun(ctx));
					return await execute.call(ctx, current, itemIndex);
				} catch (error) {
					throw sftpFailure(error, itemIndex);
				}
			}),
		];
	} finally {
		run?.close();
	}
}
